// What the readers of a config.json share (model_config.cpp for the KV
// heads, recurrent_config.cpp for the recurrent state): nlohmann/json, a key
// read as vLLM reads it, values shown in errors, and whole numbers in bounds.
// Internal to library tpcheck_model_config: nothing else sees nlohmann/json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>

namespace tpcheck::preflight::config_json {

using Json = nlohmann::json;

// A value as it is written, short and on one line, for error messages.
inline std::string shown(const Json& v) {
  std::string text = v.dump(-1, ' ', true, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// The member `key` of object `o`, or nothing when it is missing or null
// (vLLM's getattr(config, key, None) is not None).
inline const Json* member(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

struct Found {
  std::int64_t count;
  std::string value;
};

// A whole number in [lo, hi] (a head count, a dimension), or the one-line
// error naming `key`.
inline std::variant<Found, std::string> whole_number(const Json& v, const std::string& key, std::int64_t lo,
                                                     std::int64_t hi) {
  const std::string bad = key + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                          ", got " + shown(v);
  if (!v.is_number_integer()) return bad;
  // nlohmann keeps a literal without a sign as unsigned, so 0 takes this branch too.
  if (v.is_number_unsigned() ? v.get<std::uint64_t>() < static_cast<std::uint64_t>(lo) ||
                                   v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                             : v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    return bad;
  }
  return Found{v.get<std::int64_t>(), shown(v)};
}

// A head count or rank: a whole number in [1, max].
inline std::variant<Found, std::string> count_of(const Json& v, const std::string& key, std::int64_t max) {
  return whole_number(v, key, 1, max);
}

}  // namespace tpcheck::preflight::config_json

#include <optional>

#include "tpcheck/preflight/recurrent_config.hpp"

namespace tpcheck::preflight::config_json {

// recurrent_config.cpp: the recurrent layers of a parsed config (SPEC §16.5),
// read from `text` (the nested text_config, keys prefixed with `prefix`, or
// the root) and the root's model_type: nothing when the model has none, or
// the one-line error of a config that contradicts itself. Counts and dims
// are whole numbers up to `max`.
std::variant<std::optional<RecurrentConfig>, std::string> read_recurrent(const Json& root, const Json& text,
                                                                         const std::string& prefix, std::int64_t max);

}  // namespace tpcheck::preflight::config_json
