// Builds the C++ child (or the --fuzz target) of a profile whose functions
// are C++: cuts the functions out of the given files (cxx_extract.hpp),
// writes one translation unit of the stub header, the functions (with #line
// directives, so that compiler errors point into the files under test) and
// the driver, and compiles it with the system's C++ compiler. The result is
// cached by the hash of everything that goes into it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

enum class CxxTarget { Child, Fuzz };

struct CxxBuild {
  std::string executable;  // the compiled program
  bool cached = false;     // found in the cache, not compiled now
  double seconds = 0;      // spent extracting and compiling
  std::string layout;      // which TargetRanksInfo the code reads
};

// What a C++ profile cannot run without on this machine (libclang, a C++
// compiler; clang++ with libFuzzer for --fuzz), or nothing.
std::optional<std::string> cxx_missing(CxxTarget target);

// A program run to its end (a compiler, the fuzz target), its output kept.
struct ProgramRun {
  bool ok = false;      // exited with status 0
  std::string output;   // the last few kilobytes of its standard error and output
  std::string ended;    // "exited with status 1", "was killed by signal 6 (Aborted)"
  double seconds = 0;
};
// `environment`: NAME=VALUE entries over tpcheck's own.
ProgramRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       std::chrono::seconds budget);

// nullopt and a one-line `error` when something is missing or the code does
// not build (the compiler's first error, at its place in the file under test).
std::optional<CxxBuild> build_cxx(CxxTarget target, const std::vector<std::string>& files,
                                  const std::vector<Binding>& bindings, std::string& error);

}  // namespace tpcheck::conform
