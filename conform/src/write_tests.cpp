#include "tpcheck/conform/write_tests.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include <unistd.h>

#include "capture.hpp"
#include "test_parts.hpp"
#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  for (const auto piece : capture::split(text, sep)) out.emplace_back(piece);
  return out;
}

// "CommonKVManager._resolve_rank_mapping" -> "common_kv_manager_resolve_rank_mapping"
std::string snake(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0) {
      const char before = name[i - 1];
      const bool after_lower = (before >= 'a' && before <= 'z') || (before >= '0' && before <= '9');
      const bool acronym_end = before >= 'A' && before <= 'Z' && i + 1 < name.size() && name[i + 1] >= 'a' &&
                               name[i + 1] <= 'z';
      if (after_lower || acronym_end) out += '_';
    }
    out += upper ? static_cast<char>(c - 'A' + 'a') : (c == '.' || c == ' ' || c == ':') ? '_' : c;
  }
  std::string collapsed;
  for (const char c : out) {
    if (c == '_' && !collapsed.empty() && collapsed.back() == '_') continue;
    collapsed += c;
  }
  while (!collapsed.empty() && collapsed.front() == '_') collapsed.erase(collapsed.begin());
  return collapsed;
}

// "MoriKVManager._build_tp_slice_config" -> "MoriKVManagerBuildTpSliceConfig"
std::string camel(const std::string& name) {
  std::string out;
  bool up = true;
  for (const char c : name) {
    if (c == '_' || c == '.' || c == ' ') {
      up = true;
      continue;
    }
    out += up && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    up = false;
  }
  return out;
}

std::string strip_backticks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

std::string expected_literal(const Expected& e) {
  switch (e.form) {
    case Expected::Form::Value: return e.literal;
    case Expected::Form::Raises: return e.exception_class + "(" + python_string(e.message) + ")";
    case Expected::Form::Refused: return "REFUSED";
  }
  return "";
}

std::string row_key(const std::vector<std::string>& values) { return python_tuple(values); }

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// The rule a class of rows pins, as its comment says it: the error, or what
// the sizes and the heads' placement mean (selection.hpp's outcome_class).
std::string class_comment(const std::string& cls) {
  if (cls == "refused") return "# refused by the model (any exception will do: the engine names no error)";
  for (const char* k : {"ValueError: ", "AssertionError: ", "NotImplementedError: "}) {
    const std::string prefix = k;
    if (cls.compare(0, prefix.size(), prefix) == 0) return "# " + cls + " (the model's exact error)";
  }
  static const std::vector<std::pair<std::string, std::string>> kMeanings = {
      {"P < D", "the decode side is larger: its ranks share prefill ranks"},
      {"P = D", "rank for rank"},
      {"P > D", "the prefill side is larger: a decode rank's heads come from several"},
      {"L < R", "the remote side is larger"},
      {"L = R", "rank for rank"},
      {"L > R", "the local side is larger"},
      {"heads split", "each rank holds its own heads"},
      {"heads replicated", "the larger side's ranks hold copies of the same head"},
      {"MLA", "every rank holds the one latent vector"},
      {"value", "the model's value"}};
  std::vector<std::string> said;
  for (const auto& part : split(cls, ',')) {
    const std::string p = part.size() && part[0] == ' ' ? part.substr(1) : part;
    const auto m = std::find_if(kMeanings.begin(), kMeanings.end(), [&](const auto& k) { return k.first == p; });
    said.push_back(m == kMeanings.end() ? p : m->second);
  }
  return "# " + cls + ": " + joined(said, "; ");
}

struct Names {  // a section's Python names, from its qualifier
  std::string cases, deviations, meanings, observed, test, test_class;
};

Names names_of(const TestSection& s) {
  const std::string suffix = s.qualifier.empty() ? "" : "_" + snake(s.qualifier);
  std::string upper = suffix;
  for (auto& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return {"CASES" + upper,
          "DEVIATIONS" + upper,
          "MEANINGS" + upper,
          "observed" + suffix,
          "test_" + snake(s.function) + suffix,
          "Test" + camel(s.function) + camel(suffix)};
}


// The path of a given file relative to DIR, as a written test finds it from
// its own directory.
std::string relative_to(const std::string& file, const std::string& dir) {
  std::error_code ec;
  const auto rel = fs::relative(fs::absolute(file, ec), fs::absolute(dir, ec), ec);
  return ec ? fs::absolute(file, ec).string() : rel.generic_string();
}

// A paragraph's words in lines of at most `width` characters.
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out, line;
  for (const auto& word : split(text, ' ')) {
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

// The wording of a file's docstring.
std::string docstring(const std::vector<const TestSection*>& sections, const WriteOptions& o) {
  constexpr std::size_t kWidth = 79;
  const TestSection& first = *sections.front();
  const std::string command = o.adapter ? "tpcheck conform --adapter MODULE.py --write-tests DIR"
                                        : "tpcheck conform --profile " + o.profile + (o.hybrid ? " --hybrid" : "") +
                                              " --write-tests DIR";
  std::string out = "\"\"\"Regression tests of " + first.found + " against tpcheck's model.\n\n";
  out += wrapped("Written by `" + command + "`, on the grid up to --max-tp " + std::to_string(o.bounds.max_tp) +
                     " --max-heads " + std::to_string(o.bounds.max_heads) +
                     ". Every expected outcome is the model's, never the code's. The cases were chosen by mutation: "
                     "conform changed the code in small ways (an operator, a constant, an argument) and kept the "
                     "fewest cases that tell apart every change its grid tells apart from the model.",
                 kWidth);
  for (const TestSection* s : sections) {
    out += "\n" + wrapped(s->binding + ": " + std::to_string(s->kept_cases) + " of the grid's " +
                              std::to_string(s->grid_cases) + " cases tell apart all " + std::to_string(s->killed) +
                              " of its " + std::to_string(s->mutants) + " mutants that the grid tells apart." +
                              (s->informational ? " Its deviations are reported apart, as expected failures." : ""),
                          kWidth);
  }
  out += "\n" + wrapped("Regenerate the file with tpcheck rather than editing it. A failing case deviates from the "
                        "model; its message says what that does to a deployment.",
                        kWidth);
  return out + "\"\"\"\n";
}

// The section's table, deviations, observed function and test.
std::string section_text(const TestSection& s, const WriteOptions& o, bool unittest) {
  const Names n = names_of(s);
  const TestConventions& c = *o.conventions;
  std::string out = "\n";
  out += "# " + s.binding + ": " + strip_backticks(s.compared_with) + "\n";
  out += "# (" + joined(s.params, ", ") + ", expected)\n";
  out += n.cases + " = [\n";
  std::string last_class;
  std::vector<const TestSection::Row*> known;
  for (const auto& r : s.rows) {
    const bool apart = s.informational && !r.deviation.empty() && unittest;
    if (r.outcome_class != last_class && !apart) {
      out += "    " + class_comment(r.outcome_class) + "\n";
      last_class = r.outcome_class;
    }
    const std::string row = python_tuple([&] {
      auto v = r.values;
      v.push_back(expected_literal(r.expected));
      return v;
    }());
    if (s.informational && !r.deviation.empty()) {
      if (unittest) {
        known.push_back(&r);
        continue;
      }
      out += "    pytest.param(" + row.substr(1, row.size() - 2) + ", marks=pytest.mark.xfail(strict=True, reason=" +
             python_string("reported apart: " + r.deviation) + ")),\n";
      continue;
    }
    out += "    " + row + ",\n";
  }
  out += "]\n";
  if (unittest && !known.empty()) {
    out += "\n# Where the code as it was given deviates, which conform reports apart (notes, not failures):\n"
           "# expected failures.\n";
    out += "KNOWN" + n.cases.substr(5) + " = [\n";
    for (const auto* r : known) {
      auto v = r->values;
      v.push_back(expected_literal(r->expected));
      out += "    " + python_tuple(v) + ",  # " + r->deviation + "\n";
    }
    out += "]\n";
  }
  out += "\n# Where the code as it was given deviates from the model: these cases fail until it is fixed.\n";
  out += n.deviations + " = {";
  bool any = false;
  for (const auto& r : s.rows) {
    if (r.deviation.empty() || s.informational) continue;
    out += std::string(any ? "" : "\n") + "    " + row_key(r.values) + ": " + python_string(r.deviation) + ",\n";
    any = true;
  }
  out += "}\n\n";
  out += "# What a case that fails in each way does to a deployment.\n";
  out += n.meanings + " = {\n";
  for (const auto& [kind, meaning] : s.meanings) {
    out += "    " + python_string(kind) + ": " + python_string(meaning) + ",\n";
  }
  out += "}\n\n\n";
  out += "def " + n.observed + "(" + joined(s.params, ", ") + "):\n";
  out += "    \"\"\"" + s.found + " called as tpcheck conform calls it, and what of it is compared.\"\"\"\n";
  for (std::size_t i = 0; i < s.body.size(); ++i) out += "    " + s.body[i] + "\n";
  out += "\n\n";
  const std::string case_tuple = python_tuple(s.params);
  if (!unittest) {
    if (!c.test_mark.empty()) out += c.test_mark + "\n";
    std::vector<std::string> quoted;
    for (const auto& p : s.params) quoted.push_back(python_string(p));
    quoted.push_back("'expected'");
    out += "@pytest.mark.parametrize(" + python_tuple(quoted) + ", " + n.cases + ")\n";
    out += "def " + n.test + "(" + joined(s.params, ", ") + ", expected):\n";
    out += "    _assert_outcome(" + n.observed + ", " + case_tuple + ", expected, " + n.deviations + ", " + n.meanings +
           ")\n";
    return out;
  }
  out += "class " + n.test_class + "(unittest.TestCase):\n";
  out += "    def test_cases(self):\n";
  out += "        for *case, expected in " + n.cases + ":\n";
  out += "            with self.subTest(case=tuple(case)):\n";
  out += "                _assert_outcome_in(self, " + n.observed + ", tuple(case), expected, " + n.deviations + ", " +
         n.meanings + ")\n";
  for (std::size_t k = 0; k < known.size(); ++k) {
    out += "\n    @unittest.expectedFailure\n";
    out += "    def test_known_deviation_" + std::to_string(k + 1) + "(self):\n";
    out += "        *case, expected = KNOWN" + n.cases.substr(5) + "[" + std::to_string(k) + "]\n";
    out += "        _assert_outcome_in(self, " + n.observed + ", tuple(case), expected, {}, " + n.meanings + ")\n";
  }
  return out;
}

std::optional<std::string> module_for(const std::string& name, const std::string& path, const TestConventions& c) {
  if (!path.empty()) {
    if (auto m = module_of_file(path)) return m;
  }
  for (const auto& [n, m] : c.modules) {
    if (n == name) return m;
  }
  return std::nullopt;
}

WrittenFile one_file(const std::vector<const TestSection*>& sections, const WriteOptions& o) {
  const TestConventions& c = *o.conventions;
  const bool unittest = c.framework == TestConventions::Framework::Unittest;
  const bool source = o.style == ImportStyle::Source;
  WrittenFile f;
  f.name = test_file_name(sections.front()->binding);
  // What the file names: its definitions, the stand-ins its calls name, and the helpers.
  std::vector<std::pair<std::string, std::string>> definitions;
  std::set<std::string> expression_stand_ins, code_stand_ins;
  std::string code;
  for (const TestSection* s : sections) {
    for (const auto& d : s->definitions) {
      if (std::none_of(definitions.begin(), definitions.end(), [&](const auto& e) { return e.first == d.first; })) {
        definitions.push_back(d);
      }
    }
    expression_stand_ins.insert(s->expression_stand_ins.begin(), s->expression_stand_ins.end());
    code_stand_ins.insert(s->code_stand_ins.begin(), s->code_stand_ins.end());
    code += joined(s->body, "\n") + "\n";
    for (const auto& r : s->rows) {
      f.cases += 1;
      f.deviations += r.deviation.empty() ? 0 : 1;
      code += r.expected.form == Expected::Form::Refused ? "REFUSED\n" : "";
    }
  }
  std::set<std::string> wanted = names_in(code);
  wanted.insert(unittest ? "_assert_outcome_in" : "_assert_outcome");
  if (source) {
    wanted.insert(o.adapter ? "_import_adapter" : "_load");
    wanted.insert(expression_stand_ins.begin(), expression_stand_ins.end());
    wanted.insert(code_stand_ins.begin(), code_stand_ins.end());
  }
  for (const auto& d : definitions) wanted.erase(d.first);
  for (const auto& s : sections) {
    for (const auto& p : s->params) wanted.erase(p);
  }
  std::set<std::string> missing;
  const auto blocks = blocks_for(wanted, missing);
  std::string helpers;
  for (const auto* b : blocks) helpers += "\n\n" + b->text;
  // Imports: the standard library the helpers use, the framework, numpy, the definitions.
  std::set<std::string> stdlib = modules_used(helpers + code);
  if (unittest) stdlib.insert("unittest");
  std::string imports;
  for (const auto& m : stdlib) imports += "import " + m + "\n";
  std::string third_party = unittest ? "" : "import pytest\n";
  if (names_in(code).count("np")) third_party += "import numpy as np\n";
  std::string loads;
  if (source) {
    std::vector<std::string> files;
    for (const auto& file : o.files) files.push_back(python_string(relative_to(file, o.dir)));
    loads += "\n\n# The connector's files, relative to this one: the definitions are taken out of them.\n";
    loads += "_FILES = " + python_list(files) + "\n";
    std::vector<std::string> stand_ins;
    for (const auto* b : blocks) {
      if (b->from_child && (expression_stand_ins.count(b->name) || code_stand_ins.count(b->name))) {
        stand_ins.push_back(python_string(b->name) + ": " + b->name);
      }
    }
    loads += "_STAND_INS = {" + joined(stand_ins, ", ") + "}\n";
    std::string bound;
    for (const auto& d : definitions) {
      bound += d.first + " = " + (o.adapter ? "_import_adapter" : "_load") + "(" + python_string(d.first) + ")\n";
    }
    loads += "\n" + bound;
  } else {
    std::map<std::string, std::set<std::string>> from;
    for (const auto& d : definitions) {
      const auto m = module_for(d.first, d.second, c);
      if (!m) {
        f.problem = "not written: no module is known for " + d.first + " (" + d.second +
                    " lies in no package with __init__.py): give the file in its checkout, or use --import-style source";
        return f;
      }
      from[*m].insert(d.first);
    }
    for (const auto& name : expression_stand_ins) {
      const auto m = module_for(name, "", c);
      if (!m) {
        f.problem = "not written: no module is known for " + name + ": use --import-style source";
        return f;
      }
      from[*m].insert(name);
    }
    for (const auto& [m, ns] : from) {
      third_party += "from " + m + " import " + joined(std::vector<std::string>(ns.begin(), ns.end()), ", ") + "\n";
    }
  }
  std::string out;
  for (const auto& line : c.header) out += line + "\n";
  out += docstring(sections, o);
  const auto& registration = source ? c.registration_source : c.registration_module;
  if (unittest && !registration.empty()) {
    // SGLang's files register with CI before their other imports.
    for (const auto& line : registration) out += line + "\n";
    out += "\n";
  }
  out += imports + (imports.empty() || third_party.empty() ? "" : "\n") + third_party;
  if (!unittest && !registration.empty()) {
    out += "\n";
    for (const auto& line : registration) out += line + "\n";
  }
  out += helpers;
  out += loads;
  for (const TestSection* s : sections) out += "\n" + section_text(*s, o, unittest);
  if (unittest) out += "\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
  // No trailing blank lines, one blank line at most between...
  f.text = out;
  return f;
}

// Two blank lines before a top-level definition, none doubled, one newline at the end.
std::string tidy(const std::string& text) {
  std::vector<std::string> lines = split(text, '\n');
  std::string out;
  std::size_t blanks = 0;
  for (const auto& line : lines) {
    if (line.empty()) {
      ++blanks;
      continue;
    }
    if (!out.empty()) out += std::string(std::min<std::size_t>(blanks, 2), '\n');
    blanks = 0;
    out += line + "\n";
  }
  return out;
}

}  // namespace

bool read_description(const std::string& text, TestSection& s, std::vector<std::string>& coords, std::string& error) {
  for (const auto& line : split(text, '\n')) {
    if (line.empty()) continue;
    const auto fields = split(line, '\t');
    const auto field = [&](std::size_t i) { return unescape(fields[i]).value_or(fields[i]); };
    if (fields[0] == "define" && fields.size() == 3) {
      s.definitions.emplace_back(fields[1], field(2));
    } else if (fields[0] == "stand_in" && fields.size() == 3) {
      (fields[2] == "code" ? s.code_stand_ins : s.expression_stand_ins).push_back(fields[1]);
    } else if (fields[0] == "coords" && fields.size() == 2) {
      coords = split(fields[1], ' ');
    } else if (fields[0] == "result" && fields.size() == 2) {
      // the names the calls' results get: observe expressions use them
    } else if (fields[0] == "body" && fields.size() == 2) {
      s.body.push_back(field(1));
    } else {
      error = "the child described the calls in a line tpcheck cannot read: " + line.substr(0, 200);
      return false;
    }
  }
  return true;
}

std::vector<WrittenFile> test_files(const std::vector<TestSection>& sections, const WriteOptions& o) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const TestSection*>> by_function;
  for (const auto& s : sections) {
    if (!by_function.count(s.function)) order.push_back(s.function);
    by_function[s.function].push_back(&s);
  }
  std::vector<WrittenFile> out;
  for (const auto& function : order) {
    WrittenFile f = one_file(by_function[function], o);
    f.text = tidy(f.text);
    if (!f.problem.empty()) f.text.clear();
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<std::string> module_of_file(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec || p.extension() != ".py") return std::nullopt;
  std::vector<std::string> parts = {p.stem().string()};
  for (fs::path dir = p.parent_path(); fs::exists(dir / "__init__.py", ec); dir = dir.parent_path()) {
    parts.insert(parts.begin(), dir.filename().string());
    if (dir == dir.parent_path()) break;
  }
  if (parts.size() < 2) return std::nullopt;
  return joined(parts, ".");
}

std::string test_file_name(const std::string& binding) {
  return "test_conform_" + snake(binding.substr(0, binding.find(" ("))) + ".py";
}

std::optional<std::string> check_test_dir(const std::string& dir, const std::vector<Binding>& bindings, bool force) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return "--write-tests " + dir + ": no such directory";
  if (!fs::is_directory(dir, ec)) return "--write-tests " + dir + ": not a directory";
  // Whether a file can be made there (as root, access() says yes even where no file can be made).
  const fs::path probe = fs::path(dir) / (".tpcheck-write-probe-" + std::to_string(::getpid()));
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out) return "--write-tests " + dir + ": not writable";
  }
  fs::remove(probe, ec);
  for (const Binding& b : bindings) {
    const fs::path file = fs::path(dir) / test_file_name(b.name);
    if (!force && b.relation->test_items && fs::exists(file, ec)) {
      return "--write-tests " + file.string() + " exists (give --force to replace it)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> write_test_files(const std::string& dir, const std::vector<WrittenFile>& files, bool force) {
  if (auto problem = check_test_dir(dir)) return problem;
  std::error_code ec;
  for (const auto& f : files) {
    if (f.text.empty()) continue;
    if (!force && fs::exists(fs::path(dir) / f.name, ec)) {
      return "--write-tests " + (fs::path(dir) / f.name).string() + " exists (give --force to replace it)";
    }
  }
  for (const auto& f : files) {
    if (f.text.empty()) continue;
    const fs::path target = fs::path(dir) / f.name;
    const fs::path temporary = fs::path(dir) / ("." + f.name + ".tmp" + std::to_string(::getpid()));
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << f.text;
      if (!out.flush()) {
        fs::remove(temporary, ec);
        return "--write-tests " + target.string() + ": cannot be written";
      }
    }
    fs::rename(temporary, target, ec);
    if (ec) {
      fs::remove(temporary, ec);
      return "--write-tests " + target.string() + ": cannot be written (" + ec.message() + ")";
    }
  }
  return std::nullopt;
}

}  // namespace tpcheck::conform
