// The replay driver: links with a fuzz target in place of libFuzzer, so every
// target builds with any compiler and CI runs the committed corpus through it
// (`ctest -L corpus`), under sanitizers when the build has them.
//
//   fuzz_<target> [--describe] [--assert-coverage] PATH...
//   fuzz_<target> --name-inputs DIR | --check-names DIR    (registry targets: registry_names.cpp)
//   fuzz_<target> --check-past-int64 DIR                   (registry targets: registry_past_int64.cpp)
//
// Each PATH is an input file or a directory searched recursively; *.txt and
// *.md files are the corpus's readable notes, not inputs. A violated invariant
// aborts (as under libFuzzer). With --describe, each input's decoded fields
// are printed, one line per input: the readable form of a corpus file. With
// --assert-coverage (registry targets), the replay then fails unless the
// inputs met every kind each entry declares, with its non-vacuous share.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz_input.hpp"

namespace fs = std::filesystem;

// The libFuzzer entry point every target defines, and the coverage report the
// registry targets add (registry_driver.hpp).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int tpcheck_fuzz_report_coverage() __attribute__((weak));
extern "C" int tpcheck_fuzz_name_inputs(const char* dir, int check_only) __attribute__((weak));
extern "C" int tpcheck_fuzz_check_past_int64(const char* dir) __attribute__((weak));

namespace {

bool is_input(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext != ".txt" && ext != ".md";
}

// The inputs under `root`, sorted so runs are repeatable; empty on error.
std::vector<fs::path> inputs_under(const fs::path& root, std::string& error) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) return {root};
  if (!fs::is_directory(root, ec)) {
    error = "no such file or directory: " + root.string();
    return {};
  }
  std::vector<fs::path> found;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && is_input(it->path())) found.push_back(it->path());
  }
  if (ec) {
    error = "cannot read directory " + root.string() + ": " + ec.message();
    return {};
  }
  if (found.empty()) error = "no inputs under " + root.string();
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string self = fs::path(argv[0]).filename().string();
  if (argc >= 2 && (std::string(argv[1]) == "--name-inputs" || std::string(argv[1]) == "--check-names")) {
    if (!tpcheck_fuzz_name_inputs) {
      std::cerr << self << ": " << argv[1] << " needs a registry target (fuzz_invariants, fuzz_differential)\n";
      return 2;
    }
    if (argc != 3) {
      std::cerr << "usage: " << self << " " << argv[1] << " DIR\n";
      return 2;
    }
    return tpcheck_fuzz_name_inputs(argv[2], std::string(argv[1]) == "--check-names");
  }
  if (argc >= 2 && std::string(argv[1]) == "--check-past-int64") {
    if (!tpcheck_fuzz_check_past_int64) {
      std::cerr << self << ": --check-past-int64 needs a registry target (fuzz_invariants, fuzz_differential)\n";
      return 2;
    }
    if (argc != 3) {
      std::cerr << "usage: " << self << " --check-past-int64 DIR\n";
      return 2;
    }
    return tpcheck_fuzz_check_past_int64(argv[2]);
  }
  bool describe = false;
  bool assert_coverage = false;
  std::vector<std::string> roots;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--describe") {
      describe = true;
    } else if (arg == "--assert-coverage") {
      assert_coverage = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: " << self << " [--describe] [--assert-coverage] PATH...   (replay inputs; directories recursively)\n";
      if (tpcheck_fuzz_name_inputs) {
        std::cout << "       " << self << " --name-inputs DIR | --check-names DIR   (inputs selecting by name, named so)\n";
        std::cout << "       " << self << " --check-past-int64 DIR   (the mutator's move past int64 on DIR's inputs)\n";
      }
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << self << ": unknown option '" << arg << "' (this is the replay build; libFuzzer flags need "
                << "-DTPCHECK_LIBFUZZER=ON)\n";
      return 2;
    } else {
      roots.push_back(arg);
    }
  }
  if (assert_coverage && !tpcheck_fuzz_report_coverage) {
    std::cerr << self << ": --assert-coverage needs a registry target (fuzz_invariants, fuzz_differential)\n";
    return 2;
  }
  if (roots.empty()) {
    std::cerr << self << ": expected at least one input file or directory\n";
    return 2;
  }
  tpcheck::fuzz::FuzzInput::describe(describe);
  std::size_t replayed = 0;
  for (const std::string& root : roots) {
    std::string error;
    const std::vector<fs::path> files = inputs_under(root, error);
    if (!error.empty()) {
      std::cerr << self << ": " << error << "\n";
      return 2;
    }
    for (const fs::path& file : files) {
      const auto bytes = tpcheck::fuzz::read_input_file(file);
      if (!bytes) {
        std::cerr << self << ": cannot read " << file.string() << "\n";
        return 2;
      }
      LLVMFuzzerTestOneInput(bytes->data(), bytes->size());
      const std::string trace = tpcheck::fuzz::FuzzInput::take_trace();
      if (describe) std::cout << file.string() << ": " << trace << "\n";
      ++replayed;
    }
  }
  std::cout << self << ": replayed " << replayed << " inputs, no invariant violated\n";
  if (!assert_coverage) return 0;
  const int covered = tpcheck_fuzz_report_coverage();
  std::cout << self << ": " << (covered == 0 ? "every entry covered" : "coverage missing (see above)") << "\n";
  return covered;
}
