// Reading a hybrid model's recurrent layers from its config.json (SPEC §16.5;
// recurrent_config.hpp): the model type decides the family and its keys, the
// first layer rule present decides which layers are recurrent.
#include "tpcheck/preflight/recurrent_config.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include "config_json.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::preflight {
namespace {

using config_json::Found;
using config_json::Json;
using config_json::member;
using config_json::shown;
using config_json::whole_number;

// Which keys a model type names its family's values with.
enum class Keys : std::uint8_t { Nemotron, Granite, FalconH1, Qwen, Kimi, Jamba, Mamba };

struct ModelType {
  const char* name;
  StateFamily family;
  Keys keys;
};

// SPEC §16.5's table. Qwen3.5's text_config names its own model types.
constexpr std::array<ModelType, 13> kModelTypes = {{
    {"nemotron_h", StateFamily::Mamba2, Keys::Nemotron},
    {"granitemoehybrid", StateFamily::Mamba2, Keys::Granite},
    {"bamba", StateFamily::Mamba2, Keys::Granite},
    {"falcon_h1", StateFamily::Mamba2, Keys::FalconH1},
    {"qwen3_next", StateFamily::Gdn, Keys::Qwen},
    {"qwen3_5", StateFamily::Gdn, Keys::Qwen},
    {"qwen3_5_moe", StateFamily::Gdn, Keys::Qwen},
    {"qwen3_5_text", StateFamily::Gdn, Keys::Qwen},
    {"qwen3_5_moe_text", StateFamily::Gdn, Keys::Qwen},
    {"kimi_linear", StateFamily::Kda, Keys::Kimi},
    {"jamba", StateFamily::Mamba1, Keys::Jamba},
    {"mamba", StateFamily::Mamba1, Keys::Mamba},
    {"falcon_mamba", StateFamily::Mamba1, Keys::Mamba},
}};

// Keys only a recurrent model has: a config with one of them and a model type
// not above is a family tpcheck does not know.
constexpr std::array<const char*, 11> kRecurrentMarkers = {
    "hybrid_override_pattern", "linear_attn_config", "linear_num_key_heads", "linear_num_value_heads",
    "mamba_num_heads",         "mamba_n_heads",      "mamba_d_state",        "mamba_d_conv",
    "mamba_expand",            "ssm_state_size",     "attn_layer_period"};

// The layer rules, first present wins (SPEC §16.5).
constexpr std::array<const char*, 5> kLayerRules = {"hybrid_override_pattern", "layer_types", "linear_attn_config",
                                                    "full_attention_interval", "attn_layer_period"};

const ModelType* model_type_named(const std::string& name) {
  for (const ModelType& t : kModelTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::string string_member(const Json& o, const char* key) {
  const Json* v = member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// "a, b and c".
std::string listed(std::span<const std::string> items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return out;
}

// Where the family's values are read: the keys of the dims in SPEC §16.0's
// order and of the conv kernel, in `object` (the text config, or Kimi's
// linear_attn_config) under `prefix`.
struct FamilyKeys {
  std::vector<std::string> dims;  // Jamba's I is a product: empty there
  std::string kernel;
  std::vector<std::string> extra;  // needed for a product or a cross-check
};

FamilyKeys family_keys(Keys keys) {
  switch (keys) {
    case Keys::Nemotron: return {{"mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size"}, "conv_kernel", {}};
    case Keys::Granite:
      return {{"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state"}, "mamba_d_conv",
              {"mamba_expand", "hidden_size"}};
    case Keys::FalconH1:
      return {{"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state"}, "mamba_d_conv", {}};
    case Keys::Qwen:
      return {{"linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads", "linear_value_head_dim"},
              "linear_conv_kernel_dim",
              {}};
    case Keys::Kimi: return {{"num_heads", "head_dim"}, "short_conv_kernel_size", {}};
    case Keys::Jamba: return {{"", "mamba_d_state"}, "mamba_d_conv", {"mamba_expand", "hidden_size"}};
    case Keys::Mamba: return {{"intermediate_size", "state_size"}, "conv_kernel", {}};
  }
  return {};
}

// Reads the values of one config object, each a whole number in bounds.
class Reader {
 public:
  Reader(const Json& object, std::string prefix, std::int64_t max) : object_(object), prefix_(std::move(prefix)), max_(max) {}

  bool has(const std::string& key) const { return !key.empty() && member(object_, key.c_str()) != nullptr; }

  // The value of `key` in [lo, max]; the error goes to `error_` (the first one wins).
  ConfigValue value(const std::string& key, std::int64_t lo = 1) {
    const auto found = whole_number(*member(object_, key.c_str()), prefix_ + key, lo, max_);
    if (const auto* bad = std::get_if<std::string>(&found)) {
      if (error_.empty()) error_ = *bad;
      return {};
    }
    return {std::get<Found>(found).count, prefix_ + key};
  }

  // a * b of two values read, bounded as one.
  ConfigValue product(const std::string& a, const std::string& b) {
    const ConfigValue x = value(a), y = value(b);
    const ConfigValue out{x.value * y.value, x.key + " * " + y.key};
    if (error_.empty() && out.value > max_) {
      error_ = out.key + " = " + std::to_string(out.value) + " must be at most " + std::to_string(max_);
    }
    return out;
  }

  const std::string& error() const { return error_; }
  const std::string& prefix() const { return prefix_; }

 private:
  const Json& object_;
  std::string prefix_;
  std::int64_t max_;
  std::string error_;
};

std::string family_error(const ModelType& t, const std::string& type_key, const std::string& message) {
  return type_key + " " + t.name + ": " + message;
}

// The state dtype under the first of `keys` present: an element size, or nothing for "auto" or no key.
std::variant<std::optional<ConfigDtype>, std::string> read_dtype(const Json& text, const std::string& prefix,
                                                                 std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const Json* v = member(text, key);
    if (v == nullptr) continue;
    const std::string name = v->is_string() ? v->get<std::string>() : "";
    if (name == "auto") return std::optional<ConfigDtype>();
    const std::int64_t bytes = name == "float32" ? 4 : name == "float16" || name == "bfloat16" ? 2 : 0;
    if (bytes == 0) return prefix + key + " must be float32, float16, bfloat16 or auto, got " + shown(*v);
    return std::optional<ConfigDtype>(ConfigDtype{bytes, prefix + key, name});
  }
  return std::optional<ConfigDtype>();
}

// The 1-based list `key` of linear_attn_config (`name` its dotted key),
// each layer in [1, layers].
std::variant<std::vector<std::int64_t>, std::string> one_based_list(const Json& kimi, const char* key,
                                                                    const std::string& name, std::int64_t layers) {
  const Json* v = member(kimi, key);
  if (v == nullptr || !v->is_array()) {
    return name + " must be a list of layers, got " + (v == nullptr ? std::string("nothing") : shown(*v));
  }
  std::vector<std::int64_t> out;
  for (const Json& item : *v) {
    const auto found = whole_number(item, name + " entry", 1, std::numeric_limits<std::int64_t>::max());
    if (const auto* bad = std::get_if<std::string>(&found)) return *bad;
    const std::int64_t l = std::get<Found>(found).count;
    if (l > layers) {
      return name + " names layer " + std::to_string(l) + ", past num_hidden_layers " + std::to_string(layers) +
             " (its layers are 1-based)";
    }
    if (std::find(out.begin(), out.end(), l) != out.end()) return name + " names layer " + std::to_string(l) + " twice";
    out.push_back(l);
  }
  return out;
}

// Which layers are which, by the first rule present (SPEC §16.5's order),
// covering exactly `layers` layers.
std::variant<std::pair<std::string, std::vector<LayerKind>>, std::string> layer_kinds(const Json& text,
                                                                                     const std::string& prefix,
                                                                                     const ModelType& type,
                                                                                     std::int64_t layers) {
  const auto n = static_cast<std::size_t>(layers);
  const auto count_mismatch = [&](const std::string& key, std::size_t given) {
    return prefix + key + " gives " + std::to_string(given) + " layers but num_hidden_layers is " +
           std::to_string(layers);
  };
  for (const char* rule : kLayerRules) {
    const Json* v = member(text, rule);
    if (v == nullptr) continue;
    const std::string key = prefix + rule;
    std::vector<LayerKind> kinds;
    if (std::string_view(rule) == "hybrid_override_pattern") {
      if (!v->is_string()) return key + " must be a string, got " + shown(*v);
      for (const char c : v->get<std::string>()) {
        const LayerKind k = c == 'M'                ? LayerKind::Recurrent
                            : c == '*'              ? LayerKind::Attention
                            : c == '-' || c == 'E' ? LayerKind::Neither
                                                    : LayerKind::Both;  // Both: not a pattern character
        if (k == LayerKind::Both) {
          return key + " has '" + std::string(1, c) + "' at layer " + std::to_string(kinds.size()) +
                 ": expected M (Mamba2), * (attention), - (MLP) or E (MoE)";
        }
        kinds.push_back(k);
      }
      if (kinds.size() != n) return count_mismatch(rule, kinds.size());
    } else if (std::string_view(rule) == "layer_types") {
      if (!v->is_array()) return key + " must be a list, got " + shown(*v);
      for (const Json& item : *v) {
        const std::string t = item.is_string() ? item.get<std::string>() : "";
        if (t == "mamba" || t == "linear_attention") {
          kinds.push_back(LayerKind::Recurrent);
        } else if (t == "attention" || t == "full_attention") {
          kinds.push_back(LayerKind::Attention);
        } else {
          return key + "[" + std::to_string(kinds.size()) + "] is " + shown(item) +
                 ": expected \"mamba\" or \"linear_attention\" (recurrent), \"attention\" or \"full_attention\"";
        }
      }
      if (kinds.size() != n) return count_mismatch(rule, kinds.size());
    } else if (std::string_view(rule) == "linear_attn_config") {
      if (!v->is_object()) return key + " must be an object, got " + shown(*v);
      const bool has_kda = member(*v, "kda_layers") != nullptr, has_full = member(*v, "full_attn_layers") != nullptr;
      if (!has_kda && !has_full) continue;  // only the KDA dims: the next rule decides
      const auto kda = one_based_list(*v, "kda_layers", key + ".kda_layers", layers);
      if (const auto* bad = std::get_if<std::string>(&kda)) return *bad;
      const auto full = one_based_list(*v, "full_attn_layers", key + ".full_attn_layers", layers);
      if (const auto* bad = std::get_if<std::string>(&full)) return *bad;
      const auto& k = std::get<std::vector<std::int64_t>>(kda);
      const auto& f = std::get<std::vector<std::int64_t>>(full);
      for (std::int64_t l = 1; l <= layers; ++l) {
        const bool in_kda = std::find(k.begin(), k.end(), l) != k.end();
        const bool in_full = std::find(f.begin(), f.end(), l) != f.end();
        if (in_kda == in_full) {
          return "layer " + std::to_string(l) + " (1-based) is in " + (in_kda ? "both " : "neither ") + key +
                 ".kda_layers " + (in_kda ? "and" : "nor") + " .full_attn_layers: each layer must be in exactly one";
        }
        kinds.push_back(in_kda ? LayerKind::Recurrent : LayerKind::Attention);
      }
    } else if (std::string_view(rule) == "full_attention_interval") {
      const auto found = whole_number(*v, key, 1, layers);
      if (const auto* bad = std::get_if<std::string>(&found)) return *bad;
      const std::int64_t every = std::get<Found>(found).count;
      for (std::int64_t l = 0; l < layers; ++l) {
        kinds.push_back((l + 1) % every == 0 ? LayerKind::Attention : LayerKind::Recurrent);
      }
    } else {  // attn_layer_period with attn_layer_offset (Jamba)
      const auto period = whole_number(*v, key, 1, layers);
      if (const auto* bad = std::get_if<std::string>(&period)) return *bad;
      const Json* offset_value = member(text, "attn_layer_offset");
      if (offset_value == nullptr) return key + " needs " + prefix + "attn_layer_offset";
      const std::int64_t every = std::get<Found>(period).count;
      const auto offset = whole_number(*offset_value, prefix + "attn_layer_offset", 0, every - 1);
      if (const auto* bad = std::get_if<std::string>(&offset)) return *bad;
      for (std::int64_t l = 0; l < layers; ++l) {
        kinds.push_back(l % every == std::get<Found>(offset).count ? LayerKind::Attention : LayerKind::Recurrent);
      }
    }
    return std::pair{key, std::move(kinds)};
  }
  // The model type's own rule.
  if (type.keys == Keys::FalconH1 || type.keys == Keys::Mamba) {
    return std::pair{"model_type " + std::string(type.name),
                     std::vector<LayerKind>(n, type.keys == Keys::FalconH1 ? LayerKind::Both : LayerKind::Recurrent)};
  }
  std::vector<std::string> rules;
  for (const char* r : kLayerRules) rules.push_back(prefix + r);
  return "model_type " + std::string(type.name) + " gives no layer rule: none of " + listed(rules);
}

// The config's dims contradict one another where a product or a second key
// states the same width (Granite, Falcon-H1) or where the model's own config
// check fails (SPEC §16.1: heads a multiple of groups, value heads of key heads).
std::optional<std::string> cross_check(const ModelType& t, Reader& r, const RecurrentConfig& c) {
  const ConfigValue& heads = c.dims[0];
  const ConfigValue& head_dim = c.dims[1];
  const std::int64_t width = heads.value * head_dim.value;
  const auto differs = [&](const ConfigValue& stated) {
    return stated.key + " = " + std::to_string(stated.value) + " differs from " + heads.key + " * " + head_dim.key +
           " = " + std::to_string(width) + ": the dims contradict each other";
  };
  if (t.keys == Keys::Granite) {
    const ConfigValue stated = r.product("mamba_expand", "hidden_size");
    if (!r.error().empty()) return r.error();
    if (stated.value != width) return differs(stated);
  }
  if (t.keys == Keys::FalconH1) {
    const ConfigValue stated = r.has("mamba_d_ssm") ? r.value("mamba_d_ssm") : r.product("mamba_expand", "hidden_size");
    if (!r.error().empty()) return r.error();
    if (stated.value != width) return differs(stated);
  }
  const Outcome<StateShape<std::int64_t>> shape = state_shape<std::int64_t>(1, c.state_dims());
  if (!shape.ok()) {
    const bool gdn = c.family == StateFamily::Gdn;
    return c.dims[gdn ? 2 : 0].key + " and " + c.dims[gdn ? 0 : 2].key + " contradict each other: " + render(shape.failure());
  }
  return std::nullopt;
}

}  // namespace

std::int64_t RecurrentConfig::recurrent_layers() const {
  return std::count_if(kinds.begin(), kinds.end(),
                       [](LayerKind k) { return k == LayerKind::Recurrent || k == LayerKind::Both; });
}

std::int64_t RecurrentConfig::attention_layers() const {
  return std::count_if(kinds.begin(), kinds.end(),
                       [](LayerKind k) { return k == LayerKind::Attention || k == LayerKind::Both; });
}

std::vector<std::int64_t> RecurrentConfig::layers_of(LayerKind kind) const {
  std::vector<std::int64_t> out;
  for (std::size_t l = 0; l < kinds.size(); ++l) {
    if (kinds[l] == kind) out.push_back(static_cast<std::int64_t>(l));
  }
  return out;
}

StateDims<std::int64_t> RecurrentConfig::state_dims() const {
  StateDims<std::int64_t> d;
  d.family = family;
  for (std::size_t i = 0; i < kMaxStateDims; ++i) d.v[i] = dims[i].value;
  return d;
}

std::string known_recurrent_model_types() {
  std::vector<std::string> names;
  for (const ModelType& t : kModelTypes) names.emplace_back(t.name);
  return listed(names);
}

std::string describe_state(const RecurrentConfig& r) {
  std::string out = std::string(state_family_name(r.family)) + " from " + r.model_type_key + " " + r.model_type + ":";
  const auto names = state_dim_config_names(r.family);
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += " " + std::string(names[i]) + " " + std::to_string(r.dims[i].value) + " (" + r.dims[i].key + "),";
  }
  out += " conv kernel " + std::to_string(r.conv_kernel.value) + " (" + r.conv_kernel.key + ")";
  for (const auto* dtype : {&r.conv_dtype, &r.ssm_dtype}) {
    if (*dtype) out += ", " + (*dtype)->key + " " + (*dtype)->name;
  }
  return out;
}

std::string describe_layers(const RecurrentConfig& r) {
  const std::string family(state_family_name(r.family));
  std::string out = std::to_string(r.layers.value) + " layers (" + r.layers.key + ") by " + r.rule + ": ";
  const std::int64_t both = static_cast<std::int64_t>(r.layers_of(LayerKind::Both).size());
  if (both == r.layers.value) return out + "each has attention and " + family;
  const std::vector<std::int64_t> attention = r.layers_of(LayerKind::Attention);
  const std::int64_t neither = static_cast<std::int64_t>(r.layers_of(LayerKind::Neither).size());
  out += std::to_string(r.recurrent_layers()) + " " + family + ", " + std::to_string(attention.size()) + " attention";
  // Few enough attention layers to name (0-based).
  if (!attention.empty() && attention.size() <= 16) {
    std::string at;
    for (const std::int64_t l : attention) at += (at.empty() ? "" : ", ") + std::to_string(l);
    out += " (" + at + ")";
  }
  if (neither > 0) out += ", " + std::to_string(neither) + " neither (MLP or MoE)";
  return out;
}

namespace config_json {

std::variant<std::optional<RecurrentConfig>, std::string> read_recurrent(const Json& root, const Json& text,
                                                                         const std::string& prefix, std::int64_t max) {
  // The model type: the top level's, else the nested text config's.
  RecurrentConfig c;
  const ModelType* type = nullptr;
  for (const auto& [object, key] : {std::pair<const Json*, std::string>{&root, "model_type"},
                                    std::pair<const Json*, std::string>{&text, prefix + "model_type"}}) {
    const std::string name = string_member(*object, "model_type");
    if (type == nullptr && model_type_named(name) != nullptr) {
      type = model_type_named(name);
      c.model_type = name;
      c.model_type_key = key;
    }
  }
  if (type == nullptr) {
    const std::string name = string_member(root, "model_type");
    for (const char* marker : kRecurrentMarkers) {
      if (member(text, marker) == nullptr) continue;
      return (name.empty() ? std::string("a config without model_type") : "model_type '" + name + "'") +
             " has recurrent layers (" + prefix + marker + "), a family tpcheck does not model; it reads " +
             known_recurrent_model_types();
    }
    return std::optional<RecurrentConfig>();
  }
  c.family = type->family;

  // The family's keys, all of them or an error naming what is missing.
  const Json* kimi = type->keys == Keys::Kimi ? member(text, "linear_attn_config") : nullptr;
  if (kimi != nullptr && !kimi->is_object()) return prefix + "linear_attn_config must be an object, got " + shown(*kimi);
  static const Json kNoKeys = Json::object();
  const Json& object = type->keys != Keys::Kimi ? text : kimi != nullptr ? *kimi : kNoKeys;
  Reader r(object, prefix + (type->keys == Keys::Kimi ? "linear_attn_config." : ""), max);
  const FamilyKeys keys = family_keys(type->keys);
  std::vector<std::string> needed, missing;
  for (const std::string& k : keys.dims) {
    if (!k.empty()) needed.push_back(k);
  }
  needed.push_back(keys.kernel);
  needed.insert(needed.end(), keys.extra.begin(), keys.extra.end());
  if (type->keys == Keys::FalconH1 && !r.has("mamba_d_ssm")) needed.insert(needed.end(), {"mamba_expand", "hidden_size"});
  for (const std::string& k : needed) {
    if (!r.has(k)) missing.push_back(r.prefix() + k);
  }
  if (!missing.empty()) {
    std::vector<std::string> all;
    for (const std::string& k : needed) all.push_back(r.prefix() + k);
    return family_error(*type, c.model_type_key,
                        std::string(state_family_name(type->family)) + " needs " + listed(all) + "; missing: " +
                            listed(missing));
  }
  for (std::size_t i = 0; i < keys.dims.size(); ++i) {
    c.dims[i] = keys.dims[i].empty() ? r.product("mamba_expand", "hidden_size") : r.value(keys.dims[i]);
  }
  // K - 1 rows of conv window: a kernel of 1 keeps none.
  c.conv_kernel = r.value(keys.kernel, 2);
  if (!r.error().empty()) return r.error();
  if (auto contradiction = cross_check(*type, r, c)) return *contradiction;

  auto conv = read_dtype(text, prefix, {"mamba_cache_dtype"});
  if (const auto* bad = std::get_if<std::string>(&conv)) return *bad;
  auto ssm = read_dtype(text, prefix, {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"});
  if (const auto* bad = std::get_if<std::string>(&ssm)) return *bad;
  c.conv_dtype = std::get<std::optional<ConfigDtype>>(conv);
  c.ssm_dtype = std::get<std::optional<ConfigDtype>>(ssm);

  // The layers: num_hidden_layers (or the names Hugging Face maps to it), covered by the rule.
  for (const char* key : {"num_hidden_layers", "n_layer", "n_layers", "num_layers"}) {
    if (member(text, key) == nullptr) continue;
    const auto found = whole_number(*member(text, key), prefix + key, 1, max);
    if (const auto* bad = std::get_if<std::string>(&found)) return *bad;
    c.layers = {std::get<Found>(found).count, prefix + key};
    break;
  }
  if (c.layers.key.empty()) return family_error(*type, c.model_type_key, "no num_hidden_layers for its layer rule to cover");
  auto kinds = layer_kinds(text, prefix, *type, c.layers.value);
  if (const auto* bad = std::get_if<std::string>(&kinds)) return *bad;
  auto& [rule, layer_kinds_read] = std::get<std::pair<std::string, std::vector<LayerKind>>>(kinds);
  c.rule = rule;
  c.kinds = std::move(layer_kinds_read);
  return std::optional<RecurrentConfig>(std::move(c));
}

}  // namespace config_json
}  // namespace tpcheck::preflight
