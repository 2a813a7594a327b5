// libclang through dlopen: the C API's declarations come from Debian's
// libclang-14-dev at build time (clang-c/Index.h), the library itself from
// libclang1-14 at run time.
#include "cxx_extract.hpp"

#include <dlfcn.h>

#include <algorithm>
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
  X(clang_getCursorReferenced) X(clang_getFile) X(clang_getLocationForOffset) X(clang_getRange)             \
  X(clang_getTokenLocation)
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

  // --- the tokens' view, for definitions the AST lost ---
  // Without the files' headers, clang cannot always make a declaration of a
  // definition (a member of a class it never saw). The tokens still hold:
  // strings and comments are single tokens, and preprocessor directives are
  // skipped whole, so a definition is `[Class ::] name ( ... ) ... { ... }`
  // at namespace scope, found by matching brackets.
  struct Token {
    CXTokenKind kind;
    std::string text;
    unsigned offset;
    unsigned line;
  };

  std::vector<Token> file_tokens() {
    std::vector<Token> out;
    CXFile file = lib.clang_getFile(tu, path.c_str());
    if (!file) return out;
    const CXSourceRange all = lib.clang_getRange(lib.clang_getLocationForOffset(tu, file, 0),
                                                 lib.clang_getLocationForOffset(tu, file, static_cast<unsigned>(source.size())));
    CXToken* tokens = nullptr;
    unsigned count = 0;
    lib.clang_tokenize(tu, all, &tokens, &count);
    unsigned directive_end = 0;
    for (unsigned i = 0; i < count; ++i) {
      unsigned line = 0;
      const unsigned offset = offset_of(lib, lib.clang_getTokenLocation(tu, tokens[i]), &line);
      if (offset < directive_end) continue;
      std::string text = take(lib, lib.clang_getTokenSpelling(tu, tokens[i]));
      const CXTokenKind kind = lib.clang_getTokenKind(tokens[i]);
      if (kind == CXToken_Comment) continue;
      if (kind == CXToken_Punctuation && text == "#" && starts_line(offset)) {
        directive_end = end_of_directive(offset);
        continue;
      }
      out.push_back({kind, std::move(text), offset, line});
    }
    lib.clang_disposeTokens(tu, tokens, count);
    return out;
  }

  bool starts_line(unsigned offset) const {
    for (unsigned o = offset; o-- > 0;) {
      if (source[o] == '\n') return true;
      if (source[o] != ' ' && source[o] != '\t') return false;
    }
    return true;
  }

  unsigned end_of_directive(unsigned offset) const {
    for (std::size_t o = offset; o < source.size(); ++o) {
      if (source[o] == '\n' && (o == 0 || source[o - 1] != '\\')) return static_cast<unsigned>(o);
    }
    return static_cast<unsigned>(source.size());
  }

  // The token after the bracket that closes the one at `i`, or npos.
  static std::size_t after_closing(const std::vector<Token>& t, std::size_t i) {
    const std::string open = t[i].text;
    const std::string close = open == "(" ? ")" : open == "{" ? "}" : "]";
    int depth = 0;
    for (std::size_t k = i; k < t.size(); ++k) {
      if (t[k].kind != CXToken_Punctuation) continue;
      if (t[k].text == open) ++depth;
      if (t[k].text == close && --depth == 0) return k + 1;
    }
    return std::string::npos;
  }

  void token_definitions() {
    const std::vector<Token> t = file_tokens();
    std::vector<std::string> names;    // what was found by the AST
    for (const auto& d : scan.definitions) names.push_back(d.name);
    std::vector<std::pair<bool, std::string>> scopes;  // open braces: namespace (and its name) or not
    std::size_t statement_start = 0;                    // first token of the current declaration
    for (std::size_t i = 0; i < t.size(); ++i) {
      const Token& tok = t[i];
      if (tok.kind == CXToken_Punctuation && (tok.text == ";" || tok.text == "}")) {
        if (tok.text == "}" && !scopes.empty()) scopes.pop_back();
        statement_start = i + 1;
        continue;
      }
      if (tok.kind == CXToken_Keyword && tok.text == "namespace") {
        // namespace a::b {  |  namespace {  |  namespace x = y;
        std::vector<std::string> parts;
        std::size_t k = i + 1;
        for (; k < t.size() && (t[k].kind == CXToken_Identifier || t[k].text == "::"); ++k) {
          if (t[k].kind == CXToken_Identifier) parts.push_back(t[k].text);
        }
        if (k < t.size() && t[k].text == "{") {
          if (parts.empty()) parts.push_back("");
          for (const auto& p : parts) scopes.emplace_back(true, p);
          // one `}` closes them all: keep them as one scope entry per brace
          for (std::size_t n = 1; n < parts.size(); ++n) scopes.pop_back();
          scopes.back().second.clear();
          for (std::size_t n = 0; n < parts.size(); ++n) scopes.back().second += (n ? "::" : "") + parts[n];
          i = k;
          statement_start = k + 1;
        }
        continue;
      }
      if (tok.kind == CXToken_Punctuation && tok.text == "{") {
        // extern "C" { ... } opens a scope at namespace level; any other brace
        // here starts something that is not a function definition: skip it.
        const bool linkage = i >= 2 && t[i - 2].text == "extern" && t[i - 1].kind == CXToken_Literal;
        if (linkage) {
          scopes.emplace_back(true, "\x01");
          statement_start = i + 1;
          continue;
        }
        const std::size_t end = after_closing(t, i);
        if (end == std::string::npos) return;
        i = end - 1;
        statement_start = end;
        continue;
      }
      if (tok.kind != CXToken_Identifier || i + 1 >= t.size() || t[i + 1].text != "(") continue;
      if (std::any_of(scopes.begin(), scopes.end(), [](const auto& s) { return !s.first; })) continue;
      // name ( params ) [qualifiers] {  -- the name, possibly Class::name
      const std::size_t params_end = after_closing(t, i + 1);
      if (params_end == std::string::npos) return;
      std::size_t k = params_end;
      while (k < t.size() && t[k].text != "{" && t[k].text != ";" && t[k].text != "=" && t[k].text != "(") {
        if (t[k].text == "[") {
          k = after_closing(t, k);
          if (k == std::string::npos) return;
          continue;
        }
        ++k;
      }
      if (k >= t.size() || t[k].text != "{") continue;
      const std::size_t body_end = after_closing(t, k);
      if (body_end == std::string::npos) return;
      CxxDefinition d;
      d.simple_name = tok.text;
      if (i >= 2 && t[i - 1].text == "::" && t[i - 2].kind == CXToken_Identifier) d.class_name = t[i - 2].text;
      d.name = d.class_name.empty() ? d.simple_name : d.class_name + "::" + d.simple_name;
      if (std::find(names.begin(), names.end(), d.name) == names.end() && statement_start <= i) {
        const unsigned begin = t[statement_start].offset;
        const unsigned end = t[body_end - 1].offset + 1;
        for (const auto& s : scopes) {
          if (s.second == "\x01") continue;
          std::size_t from = 0;
          const std::string& n = s.second;
          if (n.empty()) d.namespaces.push_back("");
          while (from <= n.size() && !n.empty()) {
            const auto sep = n.find("::", from);
            d.namespaces.push_back(n.substr(from, sep == std::string::npos ? std::string::npos : sep - from));
            if (sep == std::string::npos) break;
            from = sep + 2;
          }
        }
        d.file = path;
        d.line = t[statement_start].line;
        d.text = source.substr(begin, end - begin);
        d.body_offset = t[k].offset - begin;
        for (std::size_t m = statement_start; m < body_end; ++m) {
          if (t[m].kind == CXToken_Identifier) d.identifiers.push_back(t[m].text);
        }
        names.push_back(d.name);
        scan.definitions.push_back(std::move(d));
      }
      i = body_end - 1;
      statement_start = body_end;
    }
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
  // missing headers do not stop the parse, and no header is read at all:
  // the files' own are missing anyway, and the standard library's would
  // take most of the time (definitions the AST then loses, the tokens find).
  const char* args[] = {"-x", "c++", "-std=c++20", "-fsyntax-only", "-w", "-ferror-limit=0", "-nostdinc", "-nostdinc++",
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
  scanner.token_definitions();
  std::stable_sort(scanner.scan.definitions.begin(), scanner.scan.definitions.end(),
                   [](const CxxDefinition& a, const CxxDefinition& b) { return a.line < b.line; });
  lib.clang_disposeTranslationUnit(tu);
  lib.clang_disposeIndex(index);
  return std::move(scanner.scan);
}

}  // namespace tpcheck::conform
