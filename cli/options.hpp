// Command-line option parsing, kept apart from running the commands so that
// it can be tested and fuzzed on its own (fuzz/). A parser returns either the
// options or a one-line error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tpcheck/deployment.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::cli {

// The defaults make a run take about a minute on 2 cores.
struct VerifyOptions {
  std::int64_t max_tp = 256;
  std::int64_t max_heads = 256;
  int threads = 0;  // 0: one per core
  std::vector<std::string> invariants;  // --invariant NAME...: only these (empty: all)
  bool list = false;                    // --list: print the registry instead
  bool json = false;
  bool help = false;
};

// `verify [--max-tp N] [--max-heads N] [--threads N] [--invariant NAME]... [--list] [--json]`
std::variant<VerifyOptions, std::string> parse_verify_options(const std::vector<std::string>& args);

// A deployment's sizing, as `tpcheck check` and `tpcheck plan` take it. Sizes
// are Python integers of any size: validating them is the model's job.
struct SizingOptions {
  BigInt prefill_tp, decode_tp, kv_heads;
  bool mla = false;
  std::vector<Connector> connectors;        // check: empty means all
  std::optional<BigInt> dp_size, base_port;  // check: ports
  std::optional<BigInt> prefill_hosts, decode_hosts;
  std::optional<BigInt> decode_rank;     // plan: one decode rank only
  std::optional<BigInt> bytes_per_head;  // plan: byte offsets too
  bool json = false;
  bool help = false;
};

enum class SizingCommand { Check, Plan };

// check: --prefill-tp P --decode-tp D (--kv-heads H | --mla) [--connector NAME]...
//        [--dp-size N --base-port B] [--prefill-hosts N] [--decode-hosts N] [--json]
// plan:  --prefill-tp P --decode-tp D (--kv-heads H | --mla) [--decode-rank d]
//        [--bytes-per-head B] [--json]
std::variant<SizingOptions, std::string> parse_sizing_options(SizingCommand command, const std::vector<std::string>& args);

// A whole decimal number in [lo, hi], or nothing.
std::variant<std::int64_t, std::string> parse_bounded(const std::string& flag, const std::string& text, std::int64_t lo,
                                                      std::int64_t hi);

}  // namespace tpcheck::cli
