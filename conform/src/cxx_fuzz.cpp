// --fuzz: libFuzzer on the C++ functions under test (the fuzz target the
// profile's CxxChild writes: trtllm's is cxx/trtllm_fuzz_main.hpp),
// then the first deviation it found shrunk to the smallest case of its kind:
// libFuzzer minimises the input, the target says which deployment and kind
// it is, and the grid below that deployment finds the smallest such case,
// judged and reported as any conform run is.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <unistd.h>

#include "cxx_build.hpp"
#include "tpcheck/conform/run.hpp"

namespace tpcheck::conform {
namespace {

namespace fs = std::filesystem;

// A directory of its own, removed with it.
struct TemporaryDirectory {
  fs::path path;
  TemporaryDirectory() {
    std::string pattern = (fs::temp_directory_path() / "tpcheck-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data())) path = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::optional<fs::path> first_artifact(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    for (const char* prefix : {"crash-", "timeout-", "oom-", "leak-"}) {
      if (name.rfind(prefix, 0) == 0) return entry.path();
    }
  }
  return std::nullopt;
}

std::uint64_t executed_units(const std::string& output) {
  std::smatch m;
  static const std::regex units("stat::number_of_executed_units: ([0-9]+)");
  static const std::regex done("Done ([0-9]+) runs");
  std::uint64_t n = 0;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), units); it != std::sregex_iterator(); ++it) {
    n = std::stoull((*it)[1]);
  }
  if (n == 0 && std::regex_search(output, m, done)) n = std::stoull(m[1]);
  return n;
}

}  // namespace

std::optional<RunReport> run_conformance_fuzz(const RunOptions& o, std::string& error) {
  // The profile's C++ functions: its Python ones (trtllm's other half) run on the grid.
  const Profile* profile = find_profile(o.profile);
  std::vector<Binding> bindings;
  if (profile) bindings = profile->bindings({o.hybrid, o.families});
  std::erase_if(bindings, [](const Binding& b) { return b.child != ChildKind::Cxx; });
  if (bindings.empty() || profile->cxx == nullptr) {
    error = "--fuzz runs compiled C++ functions: it is an option of " + profiles_taking_fuzz();
    return std::nullopt;
  }
  std::vector<std::string> cxx_files;
  for (const auto& f : o.files) {
    if (!is_cxx_source(f)) {
      error = f + " is not C++ source: --fuzz compiles the C++ files of profile " + o.profile;
      return std::nullopt;
    }
    cxx_files.push_back(f);
  }
  const auto built = build_cxx(*profile->cxx, CxxTarget::Fuzz, cxx_files, bindings, error);
  if (!built) return std::nullopt;
  TemporaryDirectory work;
  if (work.path.empty()) {
    error = "cannot create a temporary directory for the fuzzer's findings";
    return std::nullopt;
  }
  FuzzSummary summary;
  summary.build_seconds = built->cached ? 0 : built->seconds;
  const std::vector<std::string> environment = {"TPCHECK_FUZZ_MAX_TP=" + std::to_string(o.bounds.max_tp)};
  const auto timeout_s = std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(o.timeout).count());
  const ProgramRun fuzz = run_program(
      {built->executable, "-max_total_time=" + std::to_string(o.fuzz_seconds), "-artifact_prefix=" + (work.path / "").string(),
       "-print_final_stats=1", "-rss_limit_mb=" + std::to_string(o.memory_mib ? o.memory_mib : kProfileMemoryMib),
       "-timeout=" + std::to_string(timeout_s), "-max_len=64"},
      environment, std::chrono::seconds(o.fuzz_seconds + 120));
  summary.seconds = fuzz.seconds;
  summary.runs = executed_units(fuzz.output);
  const auto artifact = first_artifact(work.path);
  if (!artifact) {
    if (!fuzz.ok) {
      error = "the fuzz target " + fuzz.ended + " without a finding: " + fuzz.output.substr(0, 200);
      return std::nullopt;
    }
    RunOptions grid = o;
    grid.bounds = {1, 1};  // the functions are bound and listed; the fuzzer's inputs were the cases
    auto report = run_conformance(grid, error);
    if (!report) return std::nullopt;
    for (auto& f : report->functions) f.deviations.clear();
    report->options = o;
    report->fuzz = summary;
    return report;
  }
  // The smallest input that still fails, then what it is.
  const fs::path minimized = work.path / "minimized";
  run_program({built->executable, "-minimize_crash=1", "-max_total_time=2", "-runs=2000",
               "-exact_artifact_path=" + minimized.string(), artifact->string()},
              environment, std::chrono::seconds(60));
  std::error_code ec;
  const fs::path input = fs::exists(minimized, ec) ? minimized : *artifact;
  std::vector<std::string> explain_environment = environment;
  explain_environment.push_back("TPCHECK_FUZZ_EXPLAIN=1");
  const ProgramRun explained = run_program({built->executable, input.string()}, explain_environment, std::chrono::seconds(60));
  std::smatch m;
  static const std::regex deployment("TPCHECK-DEPLOYMENT P=([0-9]+) D=([0-9]+) H=([0-9]+)");
  static const std::regex deviation("TPCHECK-DEVIATION (\\S+) (\\S+) [^\\n]*");
  if (!std::regex_search(explained.output, m, deployment)) {
    error = "the fuzz target's finding could not be replayed: " + explained.ended;
    return std::nullopt;
  }
  const int P = std::stoi(m[1]), D = std::stoi(m[2]), H = std::stoi(m[3]);
  std::string binding, kind;
  if (std::regex_search(explained.output, m, deviation)) {
    binding = m[1];
    kind = m[2];
    summary.first = m[0];
  } else {
    summary.first = "the functions crashed on P=" + std::to_string(P) + " D=" + std::to_string(D) +
                    " H=" + std::to_string(H) + " (" + explained.ended + ")";
  }
  // The grid up to the deployment found, for the smallest case of that kind:
  // cases are ordered by their largest argument first (run.cpp), so every
  // case smaller than the one found has its sizes and heads within that bound.
  int largest = std::max({P, D, H});
  static const std::regex number("=([0-9]+)");
  const auto at = explained.output.find("TPCHECK-DEPLOYMENT");
  const std::string fields = explained.output.substr(at, explained.output.find('\n', at) - at);
  for (auto it = std::sregex_iterator(fields.begin(), fields.end(), number); it != std::sregex_iterator(); ++it) {
    largest = std::max(largest, std::stoi((*it)[1]));
  }
  RunOptions grid = o;
  grid.fuzz_seconds = 0;
  grid.bounds.max_tp = std::min(largest, o.bounds.max_tp);
  grid.bounds.max_heads = std::min(largest, o.bounds.max_tp);
  if (!binding.empty()) grid.only = {binding};
  auto report = run_conformance(grid, error);
  if (!report) return std::nullopt;
  for (auto& f : report->functions) {
    if (!kind.empty()) {
      std::erase_if(f.deviations, [&](const DeviationGroup& g) { return kind_id(g.kind) != kind; });
    }
  }
  report->options = o;
  report->fuzz = summary;
  return report;
}

}  // namespace tpcheck::conform
