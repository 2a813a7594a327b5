// Function definitions cut out of C++ (or CUDA) sources with libclang, which
// gives each definition's exact extent even where the file's headers are
// missing and braces appear in strings, comments or macros (SPEC §15.2).
// libclang is loaded at run time (dlopen of Debian's libclang1-14), so the
// tpcheck binary does not depend on it; without it, scanning says what is
// missing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tpcheck::conform {

struct CxxDefinition {
  std::string name;                     // "targetIRanks", "CacheFormatter::needSendCache"
  std::string simple_name;              // "needSendCache"
  std::string class_name;               // "CacheFormatter" for a member defined out of its class
  std::vector<std::string> namespaces;  // enclosing namespaces, outermost first ("" for an anonymous one)
  std::string file;
  unsigned line = 0;                    // of the definition's first line
  std::string text;                     // the whole definition
  std::size_t body_offset = 0;          // where its body's `{` is in `text`
  std::vector<std::string> identifiers; // every identifier token of the definition
};

// A using-directive or namespace alias at namespace scope (bodies may rely on it).
struct CxxUsing {
  std::vector<std::string> namespaces;
  std::string text;  // "using namespace tensorrt_llm::common;"
  std::string target;  // the namespace it names
};

struct CxxScan {
  std::vector<CxxDefinition> definitions;  // in file order
  std::vector<CxxUsing> usings;
};

// Whether libclang can be loaded; if not, `why_not` says what to install.
bool libclang_available(std::string& why_not);

// Every function definition of the file at namespace scope (free functions
// and members defined out of their class). nullopt and `error` when libclang
// is missing or the file cannot be read.
std::optional<CxxScan> scan_cxx_file(const std::string& path, std::string& error);

}  // namespace tpcheck::conform
