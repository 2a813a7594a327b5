// SARIF 2.1.0 rendering of a RunReport (report.hpp), for GitHub code scanning
// and other SARIF viewers: each deviation group becomes an alert on the line
// where the connector function is defined.
#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "report_support.hpp"
#include "tpcheck/conform/report.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::conform {
namespace {

using report_support::expected_with_note;
using report_support::shown;

constexpr const char* kSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
// The name uriBaseId gives the directory relative URIs start from.
constexpr const char* kSourceRoot = "SRCROOT";

struct RuleText {
  const char* name;   // SARIF's rule name: PascalCase
  const char* title;  // its short description
};

RuleText rule_text(Kind kind) {
  switch (kind) {
    case Kind::WrongValue: return {"WrongValue", "Wrong value on a configuration the model serves"};
    case Kind::WrongError: return {"WrongError", "Refused with another exception class or message than the model's"};
    case Kind::AcceptsInvalid: return {"AcceptsInvalid", "Accepts a configuration the model refuses"};
    case Kind::RejectsValid: return {"RejectsValid", "Refuses a configuration the model serves"};
    case Kind::Crashed: return {"Crashed", "Raises an exception the model never raises, or dies"};
    case Kind::TimedOut: return {"TimedOut", "Does not return within the time budget"};
    case Kind::RankOutOfRange: return {"RankOutOfRange", "Connects to a rank that does not exist or is outside its DP group"};
    case Kind::Duality: return {"Duality", "A rank waits for other peers than those that connect to it"};
    case Kind::RecvFromNonsender: return {"RecvFromNonsender", "Receives from a rank that does not send to it"};
    case Kind::SendUnpicked: return {"SendUnpicked", "Sends to a rank that does not receive from it"};
    case Kind::MissingHeads: return {"MissingHeads", "A (layer, head) is received from no rank"};
    case Kind::DuplicateSource: return {"DuplicateSource", "A (layer, head) is received from more than one rank"};
    case Kind::WrongSource: return {"WrongSource", "Receives from a rank that holds none of its heads"};
  }
  return {"?", "?"};
}

// A wrong message still refuses what it should; every other kind changes what
// a deployment does.
const char* level(Kind kind) { return kind == Kind::WrongError ? "warning" : "error"; }

// RFC 3986: everything but unreserved characters and the path separator is
// percent-encoded, byte by byte (UTF-8 included).
std::string uri_path(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string file_uri(const std::filesystem::path& absolute) { return "file://" + uri_path(absolute.generic_string()); }

// The artifactLocation of a function's file: relative to the base when it
// lies under it, else absolute.
std::string artifact_location(const std::string& file, const std::filesystem::path& base) {
  const auto absolute = std::filesystem::absolute(file).lexically_normal();
  const auto relative = absolute.lexically_relative(base);
  if (relative.empty() || *relative.begin() == "..") return "{\"uri\": " + json_string(file_uri(absolute)) + "}";
  return "{\"uri\": " + json_string(uri_path(relative.generic_string())) + ", \"uriBaseId\": \"" + kSourceRoot + "\"}";
}

std::string text(const std::string& s) { return "{\"text\": " + json_string(s) + "}"; }

// One rule of the run: its id, name, title, help and level.
struct Rule {
  std::string id, name, title, help, level;
};

// "raises:AttributeError" -> "RaisesAttributeError"
std::string pascal_case(const std::string& id) {
  std::string out;
  bool upper = true;
  for (const char c : id) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      upper = true;
      continue;
    }
    out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return out;
}

// The rules: the six kinds for the profiles that judge case by case; for a
// profile with a table of kinds, its kinds that are failures, and one rule
// per member of a family found (raises:AttributeError).
std::vector<Rule> rules_of(const RunReport& r) {
  std::vector<Rule> out;
  const auto& table = profile_kinds(r.options.adapter ? std::string() : r.options.profile);
  if (table.empty()) {
    for (int k = 0; k < kKindCount; ++k) {
      const auto kind = static_cast<Kind>(k);
      const RuleText t = rule_text(kind);
      out.push_back({kind_id(kind), t.name, t.title, kind_meaning(kind), level(kind)});
    }
    return out;
  }
  for (const auto& k : table) {
    if (k.failure && k.id.back() != ':') out.push_back({k.id, pascal_case(k.id), k.title, k.meaning, "error"});
  }
  for (const auto& f : r.functions) {
    for (const auto& g : f.deviations) {
      const bool known = std::any_of(out.begin(), out.end(), [&](const Rule& rule) { return rule.id == g.id(); });
      if (known) continue;
      const KindInfo* info = find_kind(table, g.id());
      out.push_back({g.id(), pascal_case(g.id()), info ? info->title + " (" + g.id() + ")" : g.id(),
                     info ? info->meaning : g.meaning, "error"});
    }
  }
  return out;
}

std::string rules_json(const std::vector<Rule>& rules) {
  std::string out;
  for (std::size_t k = 0; k < rules.size(); ++k) {
    const Rule& rule = rules[k];
    out += std::string(k ? ",\n" : "") + "          {\"id\": " + json_string(rule.id) + ", \"name\": " +
           json_string(rule.name) + ", \"shortDescription\": " + text(rule.title) + ", \"fullDescription\": " +
           text(rule.help) + ", \"help\": " + text(rule.help) + ", \"defaultConfiguration\": {\"level\": \"" +
           rule.level + "\"}, \"properties\": {\"tags\": [\"correctness\", \"tensor-parallel\"], \"problem.severity\": \"" +
           rule.level + "\"}}";
  }
  return out;
}

std::string message(const RunReport& r, const FunctionReport& f, const DeviationGroup& g) {
  const bool diff = !r.options.baseline_path.empty();
  return g.id() + " in " + report_support::found_row(f) + ": " + std::to_string(g.count) + " of " + std::to_string(f.cases) +
         (f.by_configuration ? " configurations" : " cases") + (diff ? " changed since the baseline and deviate" : "") +
         ".\nSmallest case: " + call_text(f, g.smallest.args, g.smallest.at) + "\n  expected: " + expected_with_note(g.smallest) +
         "\n  actual:   " + shown(g.smallest.actual) + "\nWhat it does: " + g.meaning;
}

std::string result(const RunReport& r, const FunctionReport& f, const DeviationGroup& g,
                   const std::filesystem::path& base, const std::vector<Rule>& rules) {
  const auto rule = std::find_if(rules.begin(), rules.end(), [&](const Rule& x) { return x.id == g.id(); });
  const std::size_t rule_index = static_cast<std::size_t>(rule - rules.begin());
  const std::string rule_level = rule == rules.end() ? "error" : rule->level;
  std::string location = "{\"physicalLocation\": {\"artifactLocation\": " + artifact_location(f.file, base);
  if (f.line > 0) location += ", \"region\": {\"startLine\": " + std::to_string(f.line) + "}";
  location += "}, \"logicalLocations\": [{\"fullyQualifiedName\": " + json_string(f.found) + ", \"kind\": \"function\"}]}";
  return "        {\"ruleId\": " + json_string(g.id()) + ", \"ruleIndex\": " + std::to_string(rule_index) +
         ", \"level\": \"" + rule_level + "\", \"message\": " + text(message(r, f, g)) + ", \"locations\": [" +
         location + "], \"partialFingerprints\": {\"tpcheckFunctionKind/v1\": " + json_string(f.name + "/" + g.id()) +
         "}, \"properties\": {\"function\": " + json_string(f.name) + ", \"cases\": " + std::to_string(f.cases) +
         ", \"count\": " + std::to_string(g.count) + ", \"call\": " +
         json_string(call_text(f, g.smallest.args, g.smallest.at)) +
         ", \"expected\": " + json_string(shown(g.smallest.expected)) + ", \"actual\": " +
         json_string(shown(g.smallest.actual)) + "}}";
}

// What the run could not check or had trouble with: not alerts on code, but
// part of the record.
std::string notifications(const RunReport& r) {
  std::vector<std::pair<const char*, std::string>> notes;
  for (const auto& f : r.functions) {
    if (!f.checked) notes.emplace_back("note", f.name + ": skipped (" + f.skip_reason + ")");
    if (f.not_run) {
      notes.emplace_back("error", f.name + ": " + std::to_string(f.not_run) +
                                      " cases not run (abandoned after it hung or crashed)");
    }
    for (const auto& g : f.notes) {
      notes.emplace_back("note", f.name + ": " + g.id() + " in " + std::to_string(g.count) + " of " +
                                     std::to_string(f.cases) + " configurations, smallest " +
                                     call_text(f, g.smallest.args, g.smallest.at) + ": " + g.meaning);
    }
  }
  for (const auto& name : r.baseline_only) notes.emplace_back("note", name + ": in the baseline, not found now");
  for (const auto& incident : r.incidents) notes.emplace_back("warning", "child process: " + incident);
  std::string out;
  for (std::size_t i = 0; i < notes.size(); ++i) {
    out += std::string(i ? ",\n" : "\n") + "          {\"level\": \"" + notes[i].first + "\", \"message\": " +
           text(notes[i].second) + "}";
  }
  return out;
}

}  // namespace

void print_sarif(std::ostream& out, const RunReport& r, const SarifOptions& options) {
  const auto& o = r.options;
  const std::filesystem::path base = std::filesystem::path(options.base_dir).lexically_normal();
  const std::vector<Rule> rules = rules_of(r);
  std::string results;
  for (const auto& f : r.functions) {
    for (const auto& g : f.deviations) results += (results.empty() ? "\n" : ",\n") + result(r, f, g, base, rules);
  }
  const std::string category = o.adapter ? std::string("adapter") : o.profile + (o.hybrid ? "-hybrid" : "");
  out << "{\n  \"$schema\": \"" << kSchema << "\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
      << "      \"tool\": {\"driver\": {\"name\": \"tpcheck\", \"version\": " << json_string(options.tool_version)
      << ", \"semanticVersion\": " << json_string(options.tool_version) << ", \"rules\": [\n"
      << rules_json(rules) << "\n      ]}},\n"
      << "      \"automationDetails\": {\"id\": " << json_string("tpcheck-conform/" + category + "/") << "},\n"
      << "      \"originalUriBaseIds\": {\"" << kSourceRoot << "\": {\"uri\": "
      << json_string(file_uri(base / "")) << "}},\n"
      << "      \"invocations\": [{\"executionSuccessful\": true, \"exitCode\": " << exit_status(r)
      << ", \"toolExecutionNotifications\": [" << notifications(r) << "]}],\n"
      << "      \"properties\": {\"run\": " << json_string(report_support::run_title(r)) << ", \"max_tp\": "
      << o.bounds.max_tp << ", \"max_heads\": " << o.bounds.max_heads << ", \"cases\": " << r.cases
      << ", \"deviations\": " << r.deviation_count() << ", \"baseline\": "
      << (o.baseline_path.empty() ? "null" : json_string(o.baseline_path)) << "},\n"
      << "      \"results\": [" << results << (results.empty() ? "" : "\n      ") << "]\n    }\n  ]\n}\n";
}

}  // namespace tpcheck::conform
