#include "docs_tables.hpp"

#include <iostream>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "tpcheck/conform/binding_text.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::cli {
namespace {

// A table cell: on one line, its pipes escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string code(const std::string& text) { return "`" + text + "`"; }

void row(std::ostream& out, const std::vector<std::string>& cells) {
  out << "|";
  for (const std::string& c : cells) out << " " << cell(c) << " |";
  out << "\n";
}

void header(std::ostream& out, const std::vector<std::string>& titles) {
  row(out, titles);
  out << "|";
  for (std::size_t i = 0; i < titles.size(); ++i) out << " --- |";
  out << "\n";
}

// An invariant's domain: its blocks, or, for one domain per operation, how many.
std::string domain_cell(const inv::Entry& e) {
  if (e.domains.size() == 1) return dom::domain_text(e.domains.front());
  std::string names;
  for (const char* n : e.domain_names) names += (names.empty() ? "" : ", ") + code(n);
  return "one per operation (" + std::to_string(e.domains.size()) + "): " + names;
}

std::string kinds_cell(const inv::Entry& e) {
  std::string out;
  for (const char* k : e.kinds) out += (out.empty() ? "" : "; ") + std::string(k);
  return out;
}

}  // namespace

const char* proof_status_text(const inv::Proof& p) {
  switch (p.status) {
    case inv::Proof::Status::ByZ3: return "by Z3";
    case inv::Proof::Status::Stated: return "stated, not settled";
    case inv::Proof::Status::NotProvable: return "not provable";
    case inv::Proof::Status::Undeclared: return "undeclared";
  }
  return "unknown";
}

void write_commands_table(std::ostream& out) {
  header(out, {"command", "what it does"});
  for (const CommandInfo& c : command_infos()) row(out, {code(std::string("tpcheck ") + c.name + " " + c.arguments), c.summary});
}

bool write_usage(std::ostream& out, const std::string& command) {
  const CommandInfo* info = find_command(command);
  if (!info) return false;
  // The command prints its own --help: what it prints is the usage, whatever it says.
  std::ostringstream usage;
  std::streambuf* const terminal = std::cout.rdbuf(usage.rdbuf());
  const int status = info->run({"--help"});
  std::cout.rdbuf(terminal);
  if (status != 0) return false;
  out << "```text\n" << usage.str() << "```\n";
  return true;
}

void write_invariants_table(std::ostream& out) {
  header(out, {"invariant", "SPEC", "domain", "kinds of input it must meet", "proof"});
  for (const inv::Entry& e : inv::registry()) {
    row(out, {code(e.name), e.section, domain_cell(e), kinds_cell(e), proof_status_text(e.proof)});
  }
}

void write_proof_table(std::ostream& out) {
  header(out, {"invariant", "proved for"});
  for (const inv::Entry& e : inv::registry()) {
    std::string status;
    switch (e.proof.status) {
      case inv::Proof::Status::ByZ3: status = "proved: "; break;
      case inv::Proof::Status::Stated: status = "**not proved** (stated, not settled): "; break;
      default: status = "**not proved**: "; break;
    }
    row(out, {code(e.name), status + (e.proof.text ? e.proof.text : "")});
  }
}

void write_profiles_table(std::ostream& out) {
  header(out, {"profile", "the functions it checks"});
  for (const std::string& name : conform::profile_names()) {
    const auto bindings = conform::profile_bindings(name);
    std::string functions;
    for (const conform::Binding& b : bindings.value()) {
      functions += (functions.empty() ? "" : ", ") + code(b.name);
    }
    row(out, {code(name), functions});
  }
}

bool write_profile_table(std::ostream& out, const std::string& profile) {
  const auto bindings = conform::profile_bindings(profile);
  if (!bindings) return false;
  header(out, {"function", "looked for as", "called as", "compared with"});
  for (const conform::Binding& b : *bindings) {
    row(out, {code(b.name), conform::looked_for(b), conform::called_as(b), conform::compared_with(b)});
  }
  return true;
}

}  // namespace tpcheck::cli
