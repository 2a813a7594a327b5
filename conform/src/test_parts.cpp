#include "test_parts.hpp"

#include <map>

#include "embedded_files.hpp"
#include "tpcheck/conform/run.hpp"

namespace tpcheck::conform {
namespace {

bool identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool identifier_char(char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }

// The code with its comments and string literals blanked out.
std::string code_only(const std::string& code) {
  std::string out = code;
  for (std::size_t i = 0; i < out.size();) {
    const char c = out[i];
    if (c == '#') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c != '\'' && c != '"') {
      ++i;
      continue;
    }
    const bool triple = out.compare(i, 3, std::string(3, c)) == 0;
    const std::size_t quotes = triple ? 3 : 1;
    std::size_t j = i + quotes;
    while (j < out.size() && out.compare(j, quotes, std::string(quotes, c)) != 0 && (triple || out[j] != '\n')) {
      j += out[j] == '\\' ? 2 : 1;
    }
    j = std::min(out.size(), j + quotes);
    for (std::size_t k = i; k < j; ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
    i = j;
  }
  return out;
}

// The name a top-level line starts a block for: def, class, or NAME = ...
std::string starts_block(const std::string& line) {
  for (const char* keyword : {"def ", "async def ", "class "}) {
    const std::string k = keyword;
    if (line.compare(0, k.size(), k) == 0) {
      std::size_t end = k.size();
      while (end < line.size() && identifier_char(line[end])) ++end;
      return line.substr(k.size(), end - k.size());
    }
  }
  if (line.empty() || !identifier_start(line[0])) return "";
  std::size_t end = 0;
  while (end < line.size() && identifier_char(line[end])) ++end;
  std::size_t at = end;
  while (at < line.size() && line[at] == ' ') ++at;
  if (at < line.size() && line[at] == ':') {  // NAME: annotation = value
    const auto eq = line.find(" = ", at);
    return eq == std::string::npos ? "" : line.substr(0, end);
  }
  if (line.compare(at, 2, "= ") == 0 || (at + 1 == line.size() && line[at] == '=')) return line.substr(0, end);
  return "";
}

std::vector<PartBlock> blocks_of(const std::string& text, bool from_child) {
  std::vector<PartBlock> out;
  std::string comments;  // comment lines right above the next block
  bool in_block = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '\t';
    if (!top) {
      if (in_block) out.back().text += line + "\n";
      if (line.empty()) comments.clear();
      continue;
    }
    if (line[0] == '#') {
      in_block = false;
      comments += line + "\n";
      continue;
    }
    if (line[0] == '@') {  // a decorator: the block starts here
      out.push_back({"", comments + line + "\n", from_child});
      comments.clear();
      in_block = true;
      continue;
    }
    const std::string name = starts_block(line);
    if (!name.empty() && in_block && out.back().name.empty()) {  // the decorated definition
      out.back().name = name;
      out.back().text += line + "\n";
      continue;
    }
    in_block = !name.empty();
    if (in_block) out.push_back({name, comments + line + "\n", from_child});
    comments.clear();
  }
  for (auto& b : out) {
    while (b.text.size() > 1 && b.text[b.text.size() - 1] == '\n' && b.text[b.text.size() - 2] == '\n') b.text.pop_back();
  }
  return out;
}

const std::vector<PartBlock>& all_blocks() {
  static const std::vector<PartBlock> blocks = [] {
    std::vector<PartBlock> out;
    for (std::size_t i = 0; i < kWrittenPartCount; ++i) {
      for (auto& b : blocks_of(kWrittenParts[i].text, false)) out.push_back(std::move(b));
    }
    for (auto& b : blocks_of(child_program(), true)) out.push_back(std::move(b));
    return out;
  }();
  return blocks;
}

}  // namespace

std::set<std::string> names_in(const std::string& code) {
  const std::string plain = code_only(code);
  std::set<std::string> out;
  for (std::size_t i = 0; i < plain.size();) {
    if (!identifier_start(plain[i]) || (i > 0 && identifier_char(plain[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < plain.size() && identifier_char(plain[end])) ++end;
    std::size_t before = i;
    while (before > 0 && plain[before - 1] == ' ') --before;
    if (before == 0 || plain[before - 1] != '.') out.insert(plain.substr(i, end - i));
    i = end;
  }
  return out;
}

std::set<std::string> modules_used(const std::string& code) {
  static const std::set<std::string> kModules = {"__future__", "ast",      "builtins", "functools", "inspect",
                                                 "itertools",  "operator", "os",       "re",        "sys",
                                                 "types"};
  std::set<std::string> out;
  for (const auto& name : names_in(code)) {
    if (kModules.count(name)) out.insert(name);
  }
  // A submodule is imported by its own name.
  if (code_only(code).find("importlib.util.") != std::string::npos) out.insert("importlib.util");
  return out;
}

std::vector<const PartBlock*> blocks_for(const std::set<std::string>& names, std::set<std::string>& missing) {
  const auto& blocks = all_blocks();
  std::map<std::string, std::size_t> by_name;  // the written parts' block of a name before the child's
  for (std::size_t i = 0; i < blocks.size(); ++i) by_name.emplace(blocks[i].name, i);
  // Code other than the child's names the child's classes only (its locals
  // are not the child's functions of the same name).
  auto class_like = [](const std::string& n) {
    const char c = n.size() > 1 && n[0] == '_' ? n[1] : n[0];
    return c >= 'A' && c <= 'Z';
  };
  std::set<std::size_t> chosen;
  std::vector<std::string> pending(names.begin(), names.end());
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    const auto it = by_name.find(name);
    if (it == by_name.end() || (blocks[it->second].from_child && !class_like(name))) {
      missing.insert(name);
      continue;
    }
    if (!chosen.insert(it->second).second) continue;
    const PartBlock& block = blocks[it->second];
    for (const auto& n : names_in(block.text)) {
      const auto dep = by_name.find(n);
      if (dep == by_name.end() || chosen.count(dep->second)) continue;
      if (block.from_child || !blocks[dep->second].from_child || class_like(n)) pending.push_back(n);
    }
  }
  std::vector<const PartBlock*> out;
  for (const auto i : chosen) out.push_back(&blocks[i]);
  return out;
}

}  // namespace tpcheck::conform
