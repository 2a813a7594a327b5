// Command-line option parsing, kept apart from running the commands so that
// it can be tested and fuzzed on its own (fuzz/). A parser returns either the
// options or a one-line error.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tpcheck::cli {

// The defaults make a run take about a minute on 2 cores.
struct VerifyOptions {
  std::int64_t max_tp = 256;
  std::int64_t max_heads = 256;
  int threads = 0;  // 0: one per core
  bool json = false;
  bool help = false;
};

// `verify [--max-tp N] [--max-heads N] [--threads N] [--json]`
std::variant<VerifyOptions, std::string> parse_verify_options(const std::vector<std::string>& args);

// A whole decimal number in [lo, hi], or nothing.
std::variant<std::int64_t, std::string> parse_bounded(const std::string& flag, const std::string& text, std::int64_t lo,
                                                      std::int64_t hi);

}  // namespace tpcheck::cli
