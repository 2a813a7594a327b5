// Builds the C++ child (or the --fuzz target) of a profile whose functions
// are C++: cuts the functions out of the given files (cxx_extract.hpp), has
// the engine's CxxChild write one translation unit of its stub header, the
// functions (with #line directives, so that compiler errors point into the
// files under test) and its driver, and compiles it with the system's C++
// compiler, with the engines' C++ sources (their cxx/, embedded). The result
// is cached by the hash of everything that goes into it.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cxx_extract.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

enum class CxxTarget { Child, Fuzz };

struct CxxBuild {
  std::string executable;  // the compiled program
  bool cached = false;     // found in the cache, not compiled now
  double seconds = 0;      // spent extracting and compiling
  std::string note;        // what the engine's writer found the code reads
};

// What a build takes from the files, for the engine's writer.
struct CxxUnit {
  // The definitions built (the bindings' functions and what they call), in
  // file order, files in the order given; and every file's scan.
  const std::vector<const CxxDefinition*>& chosen;
  const std::vector<CxxScan>& scans;
  // A binding function's definition when it is built, else null; and why it
  // is not (left out with the compiler's first error, or not defined).
  std::function<const CxxDefinition*(const std::string&)> built;
  std::function<std::string(const std::string&)> why_not_built;
  // Whether a chosen definition names any of these identifiers.
  bool reads(std::initializer_list<const char*> identifiers) const;
};

// An engine's C++ child: what its drivers call, and how its translation unit
// is written. Its sources are the engine's cxx/ (embedded_files.hpp).
struct CxxChild {
  // The function every driver calls: it cannot be left out, and without it
  // nothing is built (`missing_driver` says what to give).
  std::string driver_function;
  std::string missing_driver;
  std::vector<std::string> helpers;  // called by the drivers besides the bindings' functions, when the files define them
  std::set<std::string> stub_names;  // its stub provides them: a definition in the files is not pulled in
  // The translation unit, for the child or the fuzz target; `note`: what it
  // found the code reads.
  std::string (*source)(const CxxUnit& unit, const std::vector<Binding>& bindings, CxxTarget target,
                        std::string& note) = nullptr;
};

// What an engine's writer writes with: lines, and definitions cut out of the
// files under test between #line directives that point into them.
class CxxSource {
 public:
  void line(const std::string& text);
  void definition(const CxxDefinition& d);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  unsigned lines_ = 0;
};
std::string open_namespaces(const std::vector<std::string>& namespaces);   // "namespace a { namespace b { "
std::string close_namespaces(const std::vector<std::string>& namespaces);  // "}}"
std::string quoted(const std::string& text);                               // a C++ string literal
// A member defined out of its class, declared inside it: the definition up
// to its body, without the class qualification of its name.
std::string member_declaration(const CxxDefinition& d);

// What a C++ profile cannot run without on this machine (libclang, a C++
// compiler; clang++ with libFuzzer for --fuzz), or nothing.
std::optional<std::string> cxx_missing(CxxTarget target);

// A program run to its end (a compiler, the fuzz target), its output kept.
struct ProgramRun {
  bool ok = false;      // exited with status 0
  std::string output;   // the last few kilobytes of its standard error and output
  std::string ended;    // "exited with status 1", "was killed by signal 6 (Aborted)"
  double seconds = 0;
};
// `environment`: NAME=VALUE entries over tpcheck's own.
ProgramRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       std::chrono::seconds budget);

// nullopt and a one-line `error` when something is missing or the code does
// not build (the compiler's first error, at its place in the file under test).
std::optional<CxxBuild> build_cxx(const CxxChild& child, CxxTarget target, const std::vector<std::string>& files,
                                  const std::vector<Binding>& bindings, std::string& error);

}  // namespace tpcheck::conform
