// `tpcheck conform`: check a connector's functions against the model (SPEC
// §10, §12, §13, §14: Python loaded from source; §15.2: C++ compiled from source). The engine is conform/ (library tpcheck_conform); this file
// only parses options and prints.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/report.hpp"
#include "tpcheck/conform/run.hpp"
#include "tpcheck/preflight/output_file.hpp"
#include "tpcheck_version.hpp"

namespace tpcheck::cli {
namespace {

// tpcheck conform --help: the profiles and the options that only some take
// are those of conform's table of profiles.
std::string conform_usage() {
  constexpr std::size_t kColumn = 26;  // where an option's description starts
  std::string profiles, hybrid;
  for (const conform::Profile& p : conform::profiles()) {
    std::string first = "  --profile " + p.name;
    first.resize(std::max(first.size() + 1, kColumn), ' ');
    for (std::size_t i = 0; i < p.usage.size(); ++i) {
      profiles += (i ? std::string(kColumn, ' ') : first) + p.usage[i] + "\n";
    }
    if (!p.hybrid.empty()) {
      hybrid += (hybrid.empty() ? "  --hybrid" + std::string(kColumn - 10, ' ') : std::string(kColumn, ' ')) + p.name +
                ": " + p.hybrid + "\n";
    }
  }
  return "usage: tpcheck conform --profile PROFILE [OPTIONS] FILE...\n"
         "       tpcheck conform --adapter MODULE.py [OPTIONS]\n"
         "  Calls a connector's functions on every case of a grid and compares each outcome with the\n"
         "  model (SPEC §10, §12, §13, §14, §15). This runs the code under test, in a separate, isolated\n"
         "  process: Python in its own interpreter; C++ compiled with the system's compiler, then run.\n" +
         profiles + "  --fuzz SECONDS          " + conform::profiles_taking_fuzz() +
         ": libFuzzer on the compiled functions (clang++, libFuzzer)\n"
         "                          instead of the grid; reports the first deviation's smallest case\n"
         "  --adapter MODULE.py     import MODULE.py, which exposes the model's operations by name\n" +
         hybrid +
         "  --family F              check hybrid models' state on family F's configurations only (mamba2,\n"
         "                          gdn, kda, mamba1; repeatable; default: all); the other functions run as\n"
         "                          without it. An option of " + conform::profiles_taking_family() + "\n"
         "  --function NAME         check only NAME (repeatable; each must be found)\n"
         "  --max-tp N              grid bound for sizes and ranks (default 16, at most 1024; the hybrid\n"
         "                          state functions' grid: 8)\n"
         "  --max-heads N           grid bound for KV head counts (default: --max-tp)\n"
         "  --timeout SECONDS       the budget of one call (default 5); a function must also keep a pace\n"
         "                          of 10 ms per call, falling behind it by at most this budget in total\n"
         "  --memory MIB            the child's address space (default 4096, 16384 with --adapter)\n"
         "  --python PATH           the interpreter to run the functions in (default python3)\n"
         "  --corpus PATH           more regression cases, 'OP ARGS...' lines (file or directory)\n"
         "  --record FILE           write every case's outcome to FILE\n"
         "  --baseline FILE         report only the cases whose outcome changed since FILE was recorded\n"
         "  --json                  one JSON object instead of the text report\n"
         "  --sarif FILE            also write SARIF 2.1.0 for code scanning: an alert per function and\n"
         "                          deviation kind, at the function's line ('-': standard output)\n"
         "  --sarif-base DIR        the SARIF's file URIs are relative to DIR (default: the working directory)\n"
         "  --markdown FILE         also write a Markdown summary table, e.g. $GITHUB_STEP_SUMMARY ('-': standard\n"
         "                          output)\n"
         "  --mutants               also choose each Python function's test cases by mutation, and print\n"
         "                          per function the grid's cases, those kept and the mutants each kills\n"
         "  --write-tests DIR       --mutants, and write a test file per Python function into DIR, in its\n"
         "                          engine's conventions, the model's outcomes its expectations\n"
         "  --import-style STYLE    the written tests import the functions from their module (module, the\n"
         "                          default for a profile) or take them out of the given files (source,\n"
         "                          the default for an adapter), where the engine is not installed\n"
         "  --force                 --write-tests may replace files of the same names in DIR\n"
         "  --print-child           print the Python program the child runs, and exit\n"
         "  Exit 0: no deviation; 1: deviations (or cases that could not run); 2: usage or load error.\n";
}

// `-` as an output file: standard output, instead of the text report.
constexpr const char* kStandardOutput = "-";

struct ConformCli {
  conform::RunOptions run;
  bool force = false;         // --force
  std::string import_style;   // --import-style, as given
  bool json = false;
  bool help = false;
  bool print_child = false;
  std::string sarif;       // --sarif
  std::string sarif_base;  // --sarif-base
  std::string markdown;    // --markdown
};

std::variant<ConformCli, std::string> parse_conform_options(const std::vector<std::string>& args) {
  ConformCli c;
  bool heads_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      c.help = true;
      return c;
    }
    if (a == "--json" || a == "--hybrid" || a == "--print-child" || a == "--mutants" || a == "--force") {
      (a == "--json"      ? c.json
       : a == "--hybrid"  ? c.run.hybrid
       : a == "--mutants" ? c.run.mutants
       : a == "--force"   ? c.force
                          : c.print_child) = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      if (i + 1 == args.size()) return a + " needs a value";
      const std::string& v = args[++i];
      if (a == "--profile") {
        c.run.profile = v;
      } else if (a == "--adapter") {
        if (c.run.adapter) return "--adapter given twice";
        c.run.adapter = true;
        c.run.files.insert(c.run.files.begin(), v);
      } else if (a == "--function") {
        c.run.only.push_back(v);
      } else if (a == "--family") {
        const auto family = state_family_named(v);
        if (!family) return "unknown family '" + v + "' for --family (known: mamba2, gdn, kda, mamba1)";
        if (std::find(c.run.families.begin(), c.run.families.end(), *family) == c.run.families.end()) {
          c.run.families.push_back(*family);
        }
      } else if (a == "--max-tp" || a == "--max-heads" || a == "--timeout" || a == "--fuzz") {
        const bool seconds = a == "--timeout" || a == "--fuzz";
        const auto n = parse_bounded(a, v, seconds ? 1 : 0, seconds ? 3600 : 1024);
        if (auto* e = std::get_if<OptionError>(&n)) return e->str();
        const auto value = std::get<std::int64_t>(n);
        if (a == "--max-tp") c.run.bounds.max_tp = static_cast<int>(value), c.run.bounds.max_tp_given = true;
        if (a == "--max-heads") c.run.bounds.max_heads = static_cast<int>(value), heads_given = true;
        if (a == "--timeout") c.run.timeout = std::chrono::seconds(value);
        if (a == "--fuzz") c.run.fuzz_seconds = static_cast<int>(value);
      } else if (a == "--memory") {
        const auto n = parse_bounded(a, v, 64, std::int64_t{1} << 30);
        if (auto* e = std::get_if<OptionError>(&n)) return e->str();
        c.run.memory_mib = static_cast<std::uint64_t>(std::get<std::int64_t>(n));
      } else if (a == "--python") {
        c.run.python = v;
      } else if (a == "--corpus") {
        c.run.corpus.push_back(v);
      } else if (a == "--write-tests") {
        if (v.empty()) return a + " needs a non-empty value";
        c.run.write_tests = v;
        c.run.mutants = true;
      } else if (a == "--import-style") {
        if (v != "module" && v != "source") return "--import-style is module or source, not '" + v + "'";
        c.import_style = v;
      } else if (a == "--record") {
        c.run.record_path = v;
      } else if (a == "--baseline") {
        c.run.baseline_path = v;
      } else if (a == "--sarif" || a == "--sarif-base" || a == "--markdown") {
        if (v.empty()) return a + " needs a non-empty value";
        (a == "--sarif" ? c.sarif : a == "--sarif-base" ? c.sarif_base : c.markdown) = v;
      } else {
        return "unknown option " + a;
      }
      continue;
    }
    if (c.run.adapter) return "an adapter run takes no FILE arguments (got " + a + ")";
    c.run.files.push_back(a);
  }
  if (!heads_given) c.run.bounds.max_heads = c.run.bounds.max_tp;
  if (c.print_child) return c;
  if (c.run.adapter && !c.run.profile.empty()) return "--adapter and --profile exclude each other";
  if (!c.run.adapter && c.run.profile.empty()) return "give --profile NAME with source FILEs, or --adapter MODULE.py";
  if (!c.run.adapter && c.run.files.empty()) return "--profile " + c.run.profile + " needs at least one FILE";
  if (c.run.fuzz_seconds && c.run.adapter) return "--fuzz is an option of " + conform::profiles_taking_fuzz();
  if (c.run.fuzz_seconds && (!c.run.record_path.empty() || !c.run.baseline_path.empty())) {
    return "--fuzz reports its finding; --record and --baseline are for grid runs";
  }
  if (c.run.mutants && (c.run.fuzz_seconds || !c.run.baseline_path.empty() || c.json)) {
    return "--mutants and --write-tests choose cases on the grid: not with --fuzz, --baseline or --json";
  }
  if ((c.force || !c.import_style.empty()) && c.run.write_tests.empty()) {
    return std::string(c.force ? "--force" : "--import-style") + " is an option of --write-tests";
  }
  c.run.import_style = c.import_style == "source" || (c.import_style.empty() && c.run.adapter)
                           ? conform::ImportStyle::Source
                           : conform::ImportStyle::Module;
  const conform::Profile* profile = conform::find_profile(c.run.profile);
  if (c.run.hybrid && !(profile && !profile->hybrid.empty())) return "--hybrid is an option of " + conform::profiles_taking_hybrid();
  if (!c.run.record_path.empty() && c.run.record_path == c.run.baseline_path) {
    return "--record and --baseline must be different files";
  }
  if (!c.sarif_base.empty() && c.sarif.empty()) return "--sarif-base is an option of --sarif";
  if (int(c.json) + int(c.sarif == kStandardOutput) + int(c.markdown == kStandardOutput) > 1) {
    return "only one of --json, --sarif - and --markdown - can write to standard output";
  }
  const auto clashes = [&](const std::string& output, const std::string& other) {
    return !output.empty() && output != kStandardOutput && output == other;
  };
  if (clashes(c.sarif, c.markdown) || clashes(c.sarif, c.run.record_path) || clashes(c.sarif, c.run.baseline_path) ||
      clashes(c.markdown, c.run.record_path) || clashes(c.markdown, c.run.baseline_path)) {
    return "--sarif, --markdown, --record and --baseline must be different files";
  }
  return c;
}

// Source is never a report: `--sarif connector.py common.py` takes the first
// file as the option's value, and writing the report would replace the
// connector's code. What the path is ("Python source", "C++ source"), if so.
std::optional<std::string> source_kind(const std::string& path, const std::vector<std::string>& files_under_test) {
  if (conform::is_cxx_source(path)) return "C++ source";
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0) return "Python source";
  for (const auto& file : files_under_test) {
    std::error_code ec;
    if (path == file || std::filesystem::equivalent(path, file, ec)) {
      return conform::is_cxx_source(file) ? "C++ source" : "Python source";
    }
  }
  return std::nullopt;
}

// Problems with the output files, found before the run rather than after it.
std::optional<std::string> check_outputs(const ConformCli& c) {
  const auto outputs = {std::pair{"--sarif", c.sarif}, std::pair{"--markdown", c.markdown},
                        std::pair{"--record", c.run.record_path}};
  for (const auto& [option, path] : outputs) {
    if (path.empty() || path == kStandardOutput) continue;
    if (const auto kind = source_kind(path, c.run.files)) {
      return option + std::string(" '") + path + "' is " + *kind + ", not a report file: it would be overwritten";
    }
    if (std::string(option) == "--record") continue;  // the run writes it, and says why it cannot
    if (auto problem = preflight::check_writable(path)) return option + std::string(" ") + *problem;
  }
  if (!c.run.write_tests.empty()) {
    auto bindings = c.run.adapter ? conform::adapter_bindings()
                                  : conform::profile_bindings(c.run.profile, {c.run.hybrid}).value_or(
                                        std::vector<conform::Binding>{});
    if (!c.run.only.empty()) {
      std::erase_if(bindings, [&](const conform::Binding& b) {
        return std::find(c.run.only.begin(), c.run.only.end(), b.name) == c.run.only.end();
      });
    }
    if (auto problem = conform::check_test_dir(c.run.write_tests, bindings, c.force)) return *problem;
  }
  std::error_code ec;
  if (!c.sarif_base.empty() && !std::filesystem::is_directory(c.sarif_base, ec)) {
    return "--sarif-base '" + c.sarif_base + "' is not a directory";
  }
  return std::nullopt;
}

// Writes the report the options ask for to standard output, then the SARIF
// and Markdown files; a file that cannot be written is a load error (2).
int write_reports(const ConformCli& c, const conform::RunReport& report) {
  std::error_code ec;
  const auto base = std::filesystem::absolute(c.sarif_base.empty() ? "." : c.sarif_base, ec);
  const auto render = [&](bool sarif) {
    std::ostringstream out;
    if (sarif) {
      conform::print_sarif(out, report, {kVersion, base.lexically_normal().string()});
    } else {
      conform::print_markdown(out, report);
    }
    return out.str();
  };
  if (c.sarif == kStandardOutput || c.markdown == kStandardOutput) {
    std::cout << render(c.sarif == kStandardOutput);
  } else if (c.json) {
    conform::print_json(std::cout, report);
  } else {
    conform::print_text(std::cout, report);
  }
  if (c.run.mutants) conform::print_mutants(std::cout, report);
  if (!c.run.write_tests.empty()) {
    conform::WriteOptions w;
    w.profile = c.run.profile;
    w.adapter = c.run.adapter;
    w.hybrid = c.run.hybrid;
    w.style = c.run.import_style;
    w.dir = c.run.write_tests;
    for (const auto& f : c.run.files) {
      if (!conform::is_cxx_source(f)) w.files.push_back(f);
    }
    w.bounds = c.run.bounds;
    const conform::Profile* profile = conform::find_profile(c.run.profile);
    w.conventions = profile && profile->tests ? profile->tests : &conform::adapter_test_conventions();
    const auto files = conform::test_files(report.sections, w);
    if (auto error = conform::write_test_files(c.run.write_tests, files, c.force)) {
      std::cout.flush();
      std::cerr << "tpcheck conform: " << *error << "\n";
      return 2;
    }
    conform::print_written(std::cout, c.run.write_tests, files);
  }
  std::cout.flush();
  for (const auto& [option, path] : {std::pair{"--sarif", c.sarif}, std::pair{"--markdown", c.markdown}}) {
    if (path.empty() || path == kStandardOutput) continue;
    if (auto error = preflight::write_file(path, render(std::string(option) == "--sarif"))) {
      std::cerr << "tpcheck conform: " << option << " " << *error << "\n";
      return 2;
    }
  }
  return conform::exit_status(report);
}

}  // namespace

int conform_command(const std::vector<std::string>& args) {
  auto parsed = parse_conform_options(args);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "tpcheck conform: " << *error << " (see tpcheck conform --help)\n";
    return 2;
  }
  const ConformCli& c = std::get<ConformCli>(parsed);
  if (c.help) {
    std::cout << conform_usage();
    return 0;
  }
  if (c.print_child) {
    std::cout << conform::child_program();
    return 0;
  }
  std::string error;
  if (auto problem = check_outputs(c)) {
    std::cerr << "tpcheck conform: " << *problem << "\n";
    return 2;
  }
  const auto report =
      c.run.fuzz_seconds ? conform::run_conformance_fuzz(c.run, error) : conform::run_conformance(c.run, error);
  if (!report) {
    std::cerr << "tpcheck conform: " << error << "\n";
    return 2;
  }
  return write_reports(c, *report);
}

}  // namespace tpcheck::cli
