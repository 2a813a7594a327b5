// A binding's section of a written test file (write_tests.hpp): the rows of
// the cases selection.hpp kept, each marked with what the code as it is does
// wrong there, and the calls as the child describes them.
#include <algorithm>

#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/write_tests.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::conform {
namespace {

// "Class: message" or the literal, for classify().
std::string notation(const Expected& e) {
  return e.form == Expected::Form::Raises ? e.exception_class + ": " + e.message : e.literal;
}

// What a finding of the kind does, in a line: "kind: meaning".
std::string finding_line(const std::string& kind, const std::vector<KindInfo>& kinds) {
  const KindInfo* info = find_kind(kinds, kind);
  return info ? kind + ": " + info->meaning : kind;
}

}  // namespace

std::optional<TestSection> make_section(const Binding& b, const Selection& sel, const std::vector<GridCase>& cases,
                                        std::uint64_t grid_cases, const std::string& found,
                                        const std::string& description, const std::vector<KindInfo>& kinds,
                                        std::string& problem) {
  TestSection s;
  s.binding = b.name;
  const auto paren = b.name.find(" (");
  s.function = b.name.substr(0, paren);
  if (paren != std::string::npos) s.qualifier = b.name.substr(paren + 2, b.name.size() - paren - 3);
  s.found = found;
  s.compared_with = b.relation->compared_with ? b.relation->compared_with(b) : "";
  s.informational = b.informational;
  s.grid_cases = grid_cases;
  s.mutants = sel.mutants;
  s.killed = sel.killed_by_grid;
  s.kept_cases = sel.kept.size();
  std::vector<std::string> coords;
  if (!read_description(description, s, coords, problem)) return std::nullopt;
  const auto& want = b.relation->test_coords;
  if (!coords.empty() && coords != want) {
    problem = "not written: the child's calls are about (" + (coords.empty() ? "" : coords.front()) +
              ", ...) where the relation's are about others";
    return std::nullopt;
  }
  for (std::size_t i = 0; i < b.params.size(); ++i) {
    s.params.push_back(b.params[i].name);
    if (b.params[i].kind == ParamKind::Flag) s.flags.push_back(i);
  }
  s.params.insert(s.params.end(), want.begin(), want.end());
  // What is compared: the binding's observe, or its render's.
  std::string observe = b.call.observe;
  if (observe.empty()) observe = b.call.render == "int_list" ? "_ints(result)" : "result";
  const std::string last = s.body.empty() ? "" : s.body.back();
  if (observe == "result" && last.rfind("result = ", 0) == 0) {
    s.body.back() = "return " + last.substr(9);
  } else {
    s.body.push_back("return " + observe);
  }
  if (!b.relation->findings) {
    for (const Kind k : {Kind::WrongValue, Kind::AcceptsInvalid, Kind::RejectsValid, Kind::WrongError}) {
      s.meanings.emplace_back(kind_id(k), deployment_meaning(b, k, Effect::Unspecified, false));
    }
    if (counts_completions(b)) {
      s.meanings.emplace_back("too_many", deployment_meaning(b, Kind::WrongValue, Effect::Stranded, true));
      s.meanings.emplace_back("too_few", deployment_meaning(b, Kind::WrongValue, Effect::EarlyFree, false));
    }
  } else {
    std::string compared = s.compared_with;
    compared.erase(std::remove(compared.begin(), compared.end(), '`'), compared.end());
    s.meanings.emplace_back("wrong_value", "a call's outcome is not the model's: " + compared);
    for (const char* k : {"accepts_invalid", "rejects_valid"}) {
      const KindInfo* info = find_kind(kinds, k);
      if (info) s.meanings.emplace_back(k, info->meaning);
    }
    s.meanings.emplace_back("wrong_error", deployment_meaning(b, Kind::WrongError, Effect::Unspecified, false));
  }
  const std::size_t op = operation_index(b.model_op).value_or(0);
  for (const std::size_t i : sel.kept) {
    const GridCase& c = cases[i];
    // What the code as it is does wrong on the case, per call.
    const Judgement j = judge(b, op, c.args, c.code);
    for (const auto& item : c.items) {
      TestSection::Row row;
      for (std::size_t k = 0; k < c.args.size(); ++k) {
        const bool flag = std::find(s.flags.begin(), s.flags.end(), k) != s.flags.end();
        row.values.push_back(flag ? (c.args[k] != 0 ? "True" : "False") : python_int(c.args[k]));
      }
      for (const auto& v : item.coords) row.values.push_back(python_int(v));
      row.expected = item.expected;
      row.outcome_class = c.outcome_class;
      if (b.relation->findings) {
        for (const auto& f : j.findings) {
          const KindInfo* info = find_kind(kinds, f.kind);
          if (info && !info->failure) continue;
          bool about = true;  // the finding is about this call: its coordinates match, or say "any"
          for (std::size_t k = 0; k < f.at.size() && k < b.coordinates.size(); ++k) {
            const auto named = std::find(want.begin(), want.end(), b.coordinates[k]);
            if (!f.at[k] || named == want.end()) continue;
            about = about && item.coords[static_cast<std::size_t>(named - want.begin())] == *f.at[k];
          }
          if (about && row.deviation.empty()) row.deviation = finding_line(f.kind, kinds);
        }
      } else {
        // One call: the judgement's kind; several (a count for every rank): each one's.
        const bool one = c.items.size() == 1;
        const auto kind = one ? j.kind : classify(notation(item.expected), c.code);
        bool too_many = j.too_many;
        if (!one && kind == Kind::WrongValue) {
          const auto got = parse_decimal(c.code.text), wanted = parse_decimal(item.expected.literal);
          too_many = got && wanted && *got > *wanted;
        }
        if (kind) row.deviation = std::string(kind_id(*kind)) + ": " + deployment_meaning(b, *kind, j.effect, too_many);
      }
      s.rows.push_back(std::move(row));
    }
  }
  return s;
}

}  // namespace tpcheck::conform
