// libclang through dlopen: the C API's declarations come from Debian's
// libclang-14-dev at build time (clang-c/Index.h), the library itself from
// libclang1-14 at run time.
#include "cxx_extract.hpp"

#include <dlfcn.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include <clang-c/Index.h>

namespace tpcheck::conform {
namespace {

// The C API functions tpcheck calls, resolved once.
struct LibClang {
  void* handle = nullptr;
  std::string error;
#define TPCHECK_CLANG_FUNCTIONS(X)                                                                             \
  X(clang_createIndex) X(clang_disposeIndex) X(clang_parseTranslationUnit2) X(clang_disposeTranslationUnit) \
  X(clang_getTranslationUnitCursor) X(clang_visitChildren) X(clang_getCursorKind) X(clang_getCursorSpelling) \
  X(clang_getCString) X(clang_disposeString) X(clang_isCursorDefinition) X(clang_getCursorExtent)           \
  X(clang_getRangeStart) X(clang_getRangeEnd) X(clang_getSpellingLocation) X(clang_getCursorSemanticParent) \
  X(clang_getCursorLexicalParent) X(clang_Location_isFromMainFile) X(clang_tokenize)                        \
  X(clang_getTokenKind) X(clang_getTokenSpelling) X(clang_disposeTokens) X(clang_equalCursors)              \
  X(clang_getCursorReferenced)
#define TPCHECK_CLANG_POINTER(f) decltype(&::f) f = nullptr;
  TPCHECK_CLANG_FUNCTIONS(TPCHECK_CLANG_POINTER)
#undef TPCHECK_CLANG_POINTER

  LibClang() {
    // Debian's libclang1-14 first; then whatever libclang the system has.
    for (const char* name : {"libclang-14.so.1", "libclang-14.so.13", "libclang.so.1", "libclang-14.so", "libclang.so"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
    }
    if (!handle) {
      error = "libclang is not installed (Debian: apt-get install libclang1-14)";
      return;
    }
#define TPCHECK_CLANG_RESOLVE(f)                                  \
  f = reinterpret_cast<decltype(f)>(dlsym(handle, #f));           \
  if (!f) {                                                       \
    error = "the libclang found lacks " #f " (libclang 14 or later is needed)"; \
    return;                                                       \
  }
    TPCHECK_CLANG_FUNCTIONS(TPCHECK_CLANG_RESOLVE)
#undef TPCHECK_CLANG_RESOLVE
  }
  bool ok() const { return error.empty(); }
};

const LibClang& libclang() {
  static const LibClang lib;
  return lib;
}

std::string take(const LibClang& lib, CXString s) {
  const char* c = lib.clang_getCString(s);
  std::string out = c ? c : "";
  lib.clang_disposeString(s);
  return out;
}

unsigned offset_of(const LibClang& lib, CXSourceLocation location, unsigned* line = nullptr) {
  unsigned offset = 0;
  lib.clang_getSpellingLocation(location, nullptr, line, nullptr, &offset);
  return offset;
}

struct Scanner {
  const LibClang& lib;
  CXTranslationUnit tu;
  const std::string& path;
  const std::string& source;
  CxxScan scan;

  std::vector<std::string> namespaces_of(CXCursor c) {
    std::vector<std::string> out;
    for (CXCursor p = lib.clang_getCursorLexicalParent(c);; p = lib.clang_getCursorLexicalParent(p)) {
      const auto kind = lib.clang_getCursorKind(p);
      if (kind == CXCursor_TranslationUnit || (kind >= CXCursor_FirstInvalid && kind <= CXCursor_LastInvalid)) break;
      if (kind == CXCursor_Namespace) out.insert(out.begin(), take(lib, lib.clang_getCursorSpelling(p)));
    }
    return out;
  }

  std::vector<std::string> identifiers(CXSourceRange range) {
    CXToken* tokens = nullptr;
    unsigned count = 0;
    lib.clang_tokenize(tu, range, &tokens, &count);
    std::vector<std::string> out;
    for (unsigned i = 0; i < count; ++i) {
      if (lib.clang_getTokenKind(tokens[i]) == CXToken_Identifier) out.push_back(take(lib, lib.clang_getTokenSpelling(tu, tokens[i])));
    }
    lib.clang_disposeTokens(tu, tokens, count);
    return out;
  }

  void function(CXCursor c) {
    if (!lib.clang_isCursorDefinition(c)) return;
    const CXSourceRange extent = lib.clang_getCursorExtent(c);
    const CXSourceLocation start = lib.clang_getRangeStart(extent);
    if (!lib.clang_Location_isFromMainFile(start)) return;
    unsigned line = 0;
    const unsigned begin = offset_of(lib, start, &line);
    const unsigned end = offset_of(lib, lib.clang_getRangeEnd(extent));
    if (end <= begin || end > source.size()) return;
    // The body: the function's compound statement.
    unsigned body = 0;
    std::pair<Scanner*, unsigned*> found_body(this, &body);
    lib.clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* self = static_cast<std::pair<Scanner*, unsigned*>*>(data);
          if (self->first->lib.clang_getCursorKind(child) == CXCursor_CompoundStmt) {
            *self->second = offset_of(self->first->lib, self->first->lib.clang_getRangeStart(
                                                            self->first->lib.clang_getCursorExtent(child)));
            return CXChildVisit_Break;
          }
          return CXChildVisit_Continue;
        },
        &found_body);
    if (body <= begin || body >= end || source[body] != '{') return;
    CxxDefinition d;
    d.simple_name = take(lib, lib.clang_getCursorSpelling(c));
    const CXCursor parent = lib.clang_getCursorSemanticParent(c);
    const auto parent_kind = lib.clang_getCursorKind(parent);
    if (parent_kind == CXCursor_ClassDecl || parent_kind == CXCursor_StructDecl ||
        parent_kind == CXCursor_ClassTemplate) {
      d.class_name = take(lib, lib.clang_getCursorSpelling(parent));
    }
    d.name = d.class_name.empty() ? d.simple_name : d.class_name + "::" + d.simple_name;
    d.namespaces = namespaces_of(c);
    d.file = path;
    d.line = line;
    d.text = source.substr(begin, end - begin);
    d.body_offset = body - begin;
    d.identifiers = identifiers(extent);
    scan.definitions.push_back(std::move(d));
  }

  void using_directive(CXCursor c) {
    const CXSourceRange extent = lib.clang_getCursorExtent(c);
    if (!lib.clang_Location_isFromMainFile(lib.clang_getRangeStart(extent))) return;
    const unsigned begin = offset_of(lib, lib.clang_getRangeStart(extent));
    const unsigned end = offset_of(lib, lib.clang_getRangeEnd(extent));
    if (end <= begin || end > source.size()) return;
    CxxUsing u;
    u.namespaces = namespaces_of(c);
    u.text = source.substr(begin, end - begin) + ";";
    // The namespace it names: the text after `namespace` (directive) or `=` (alias).
    const auto eq = u.text.find('=');
    std::string target = eq != std::string::npos ? u.text.substr(eq + 1) : u.text.substr(u.text.find("namespace") + 9);
    std::string clean;
    for (const char ch : target) {
      if (ch != ' ' && ch != ';' && ch != '\n' && ch != '\t') clean += ch;
    }
    u.target = clean;
    scan.usings.push_back(std::move(u));
  }

  static CXChildVisitResult visit(CXCursor c, CXCursor, CXClientData data) {
    auto* self = static_cast<Scanner*>(data);
    switch (self->lib.clang_getCursorKind(c)) {
      case CXCursor_Namespace:
      case CXCursor_LinkageSpec: return CXChildVisit_Recurse;
      case CXCursor_FunctionDecl:
      case CXCursor_CXXMethod:
      case CXCursor_FunctionTemplate: self->function(c); return CXChildVisit_Continue;
      case CXCursor_UsingDirective:
      case CXCursor_NamespaceAlias: self->using_directive(c); return CXChildVisit_Continue;
      default: return CXChildVisit_Continue;
    }
  }
};

}  // namespace

bool libclang_available(std::string& why_not) {
  why_not = libclang().error;
  return libclang().ok();
}

std::optional<CxxScan> scan_cxx_file(const std::string& path, std::string& error) {
  const LibClang& lib = libclang();
  if (!lib.ok()) {
    error = lib.error;
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  // Parsed as C++20 whatever the extension (CUDA's qualifiers are dropped);
  // missing headers do not stop the parse.
  const char* args[] = {"-x", "c++", "-std=c++20", "-fsyntax-only", "-w", "-ferror-limit=0",
                        "-D__global__=", "-D__device__=", "-D__host__=", "-D__forceinline__=inline",
                        "-D__shared__=", "-D__restrict__=", "-D__launch_bounds__(...)="};
  static std::mutex parsing;  // libclang indexes are not shared between threads here
  std::lock_guard<std::mutex> lock(parsing);
  CXIndex index = lib.clang_createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  CXUnsavedFile unsaved{path.c_str(), source.data(), static_cast<unsigned long>(source.size())};
  const auto code = lib.clang_parseTranslationUnit2(index, path.c_str(), args, static_cast<int>(std::size(args)),
                                                    &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
  if (code != CXError_Success || tu == nullptr) {
    lib.clang_disposeIndex(index);
    error = "libclang could not parse " + path;
    return std::nullopt;
  }
  Scanner scanner{lib, tu, path, source, {}};
  lib.clang_visitChildren(lib.clang_getTranslationUnitCursor(tu), &Scanner::visit, &scanner);
  lib.clang_disposeTranslationUnit(tu);
  lib.clang_disposeIndex(index);
  return std::move(scanner.scan);
}

}  // namespace tpcheck::conform
