// The head count of `check`, `plan` and `matrix`: given (--kv-heads, --mla) or
// read from the model's config.json (--model-config), and how it is shown.
#pragma once

#include <iostream>
#include <optional>
#include <string>

#include "options.hpp"
#include "state_source.hpp"
#include "tpcheck/outcome.hpp"
#include "tpcheck/preflight/model_config.hpp"

namespace tpcheck::cli {

// Reads --model-config when given and fills the head count and MLA from it.
// Returns the config read, or a one-line error.
std::variant<std::optional<preflight::ModelConfig>, std::string> resolve_heads(HeadSource& heads);

// How check, plan and matrix start: a usage error (one line, exit 2) or --help
// (the usage, exit 0) ends the command, otherwise --model-config is read and
// the recurrent state resolved (their errors end it with 2 too). The exit
// status when it ends, else nothing; the config read goes to `model`, the
// state to `state`.
template <class Options>
std::optional<int> start_command(const char* command, std::variant<Options, OptionError>& parsed, const char* usage,
                                 std::optional<preflight::ModelConfig>& model, std::optional<ResolvedState>& state) {
  if (const auto* error = std::get_if<OptionError>(&parsed)) {
    std::cerr << "tpcheck " << command << ": " << *error << "\n";
    return 2;
  }
  Options& o = std::get<Options>(parsed);
  if (o.help) {
    std::cout << usage;
    return 0;
  }
  auto config = resolve_heads(o);
  if (const auto* error = std::get_if<std::string>(&config)) {
    std::cerr << "tpcheck " << command << ": " << *error << "\n";
    return 2;
  }
  model = std::get<0>(config);
  auto resolved = resolve_state(o, model);
  if (const auto* error = std::get_if<std::string>(&resolved)) {
    std::cerr << "tpcheck " << command << ": " << *error << "\n";
    return 2;
  }
  state = std::get<0>(std::move(resolved));
  return std::nullopt;
}

// "8 KV heads", "1 KV head", "MLA", "no attention".
std::string heads_text(const HeadSource& heads);

// "model config: FILE: 8 KV heads from num_key_value_heads" (text output).
std::string model_config_line(const HeadSource& heads, const preflight::ModelConfig& config);

// The head fields of a --json object: "kv_heads", "mla" and "model_config"
// (null, or the file, key and value it came from).
std::string heads_json_fields(const HeadSource& heads, const std::optional<preflight::ModelConfig>& config);

// A failure as an operator reads it: "Kind: message", or only the kind when
// the exception has no message (NIXL's handshake assertion).
std::string failure_text(const Failure& failure);

}  // namespace tpcheck::cli
