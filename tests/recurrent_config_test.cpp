// Reading a hybrid model's recurrent layers from its config.json (SPEC §16.5;
// preflight/recurrent_config.hpp): each family's keys, the layer rules in
// their order of precedence, num_hidden_layers coverage, and every config
// that contradicts itself as one line. The committed fixtures are read by
// the CLI tests (tests/cli/hybrid_cli_test.cmake).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "tpcheck/preflight/model_config.hpp"

namespace tpcheck::preflight {
namespace {

constexpr std::int64_t kMax = 1 << 20;

std::variant<ModelConfig, std::string> parse(const std::string& json) { return model_config_from_text(json, kMax); }

std::string error_of(const std::string& json) {
  const auto c = parse(json);
  return std::holds_alternative<std::string>(c) ? std::get<std::string>(c) : "no error";
}

const RecurrentConfig& recurrent_of(const std::variant<ModelConfig, std::string>& c) {
  static const RecurrentConfig kNone;
  if (const auto* error = std::get_if<std::string>(&c)) {
    ADD_FAILURE() << *error;
    return kNone;
  }
  const auto& m = std::get<ModelConfig>(c);
  if (!m.recurrent) {
    ADD_FAILURE() << "no recurrent layers read";
    return kNone;
  }
  return *m.recurrent;
}

// "R" recurrent, "A" attention, "B" both, "-" neither, one per layer.
std::string kinds(const RecurrentConfig& r) {
  std::string out;
  for (const LayerKind k : r.kinds) {
    out += k == LayerKind::Recurrent ? 'R' : k == LayerKind::Attention ? 'A' : k == LayerKind::Both ? 'B' : '-';
  }
  return out;
}

const std::string kNemotron =
    R"("model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": 8, "mamba_head_dim": 4,
       "n_groups": 2, "ssm_state_size": 16, "conv_kernel": 4)";

TEST(RecurrentConfig, NemotronPatternAndItsKeys) {
  const auto c = parse("{" + kNemotron + R"(, "num_hidden_layers": 5, "hybrid_override_pattern": "M-*EM"})");
  const RecurrentConfig& r = recurrent_of(c);
  EXPECT_EQ(r.family, StateFamily::Mamba2);
  EXPECT_EQ(kinds(r), "R-A-R");
  EXPECT_EQ(r.rule, "hybrid_override_pattern");
  EXPECT_EQ(r.dims[0].key, "mamba_num_heads");
  EXPECT_EQ(r.dims[2].value, 2);
  EXPECT_EQ(r.conv_kernel.value, 4);
  EXPECT_EQ(r.recurrent_layers(), 2);
  EXPECT_EQ(r.attention_layers(), 1);
  EXPECT_EQ(std::get<ModelConfig>(c).kv_heads, 8);  // the attention layers' KV heads are read as before
  EXPECT_EQ(describe_layers(r), "5 layers (num_hidden_layers) by hybrid_override_pattern: 2 mamba2, 1 attention (2), "
                                "2 neither (MLP or MoE)");
}

// SPEC §16.5: the first rule present decides, in its order.
TEST(RecurrentConfig, TheFirstLayerRulePresentDecides) {
  const std::string gdn = R"("model_type": "qwen3_next", "num_key_value_heads": 2, "linear_num_key_heads": 2,
      "linear_key_head_dim": 4, "linear_num_value_heads": 4, "linear_value_head_dim": 4, "linear_conv_kernel_dim": 4,
      "num_hidden_layers": 4)";
  const std::string interval = R"(, "full_attention_interval": 2)";
  const std::string types = R"(, "layer_types": ["full_attention", "linear_attention", "linear_attention", "linear_attention"])";
  const std::string period = R"(, "attn_layer_period": 4, "attn_layer_offset": 1)";
  const std::string pattern = R"(, "hybrid_override_pattern": "MMM*")";
  EXPECT_EQ(kinds(recurrent_of(parse("{" + gdn + interval + "}"))), "RARA");
  EXPECT_EQ(kinds(recurrent_of(parse("{" + gdn + period + "}"))), "RARR");
  EXPECT_EQ(kinds(recurrent_of(parse("{" + gdn + interval + period + "}"))), "RARA");
  EXPECT_EQ(kinds(recurrent_of(parse("{" + gdn + types + interval + period + "}"))), "ARRR");
  EXPECT_EQ(kinds(recurrent_of(parse("{" + gdn + pattern + types + interval + "}"))), "RRRA");
  EXPECT_EQ(recurrent_of(parse("{" + gdn + types + interval + "}")).rule, "layer_types");
  // Without any rule a type with no fixed rule is an error.
  EXPECT_EQ(error_of("{" + gdn + "}"),
            "model_type qwen3_next gives no layer rule: none of hybrid_override_pattern, layer_types, "
            "linear_attn_config, full_attention_interval and attn_layer_period");
}

TEST(RecurrentConfig, FixedRulesOfFalconH1AndMamba) {
  const auto falcon = parse(R"({"model_type": "falcon_h1", "num_key_value_heads": 2, "mamba_n_heads": 4,
      "mamba_d_head": 2, "mamba_n_groups": 1, "mamba_d_state": 8, "mamba_d_conv": 4, "mamba_d_ssm": 8,
      "num_hidden_layers": 3})");
  EXPECT_EQ(kinds(recurrent_of(falcon)), "BBB");
  EXPECT_EQ(recurrent_of(falcon).rule, "model_type falcon_h1");
  const auto mamba = parse(R"({"model_type": "mamba", "intermediate_size": 64, "state_size": 16, "conv_kernel": 4,
      "num_hidden_layers": 2})");
  EXPECT_EQ(kinds(recurrent_of(mamba)), "RR");
  // No attention: no KV head key is needed, and none is read.
  EXPECT_FALSE(std::get<ModelConfig>(mamba).attention);
  EXPECT_EQ(describe(std::get<ModelConfig>(mamba)), "no KV heads: no attention layers");
}

// Kimi's lists are 1-based, each layer in exactly one.
TEST(RecurrentConfig, KimiListsAreOneBased) {
  const auto kimi = [](const std::string& kda, const std::string& full) {
    return R"({"model_type": "kimi_linear", "kv_lora_rank": 512, "num_hidden_layers": 4, "linear_attn_config":
        {"num_heads": 4, "head_dim": 8, "short_conv_kernel_size": 4, "kda_layers": )" +
           kda + R"(, "full_attn_layers": )" + full + "}}";
  };
  const auto read = parse(kimi("[1, 2, 3]", "[4]"));
  const RecurrentConfig& r = recurrent_of(read);
  EXPECT_EQ(kinds(r), "RRRA");
  EXPECT_EQ(r.dims[0].key, "linear_attn_config.num_heads");
  EXPECT_EQ(r.family, StateFamily::Kda);
  EXPECT_EQ(error_of(kimi("[1, 2, 3, 5]", "[4]")),
            "linear_attn_config.kda_layers names layer 5, past num_hidden_layers 4 (its layers are 1-based)");
  EXPECT_EQ(error_of(kimi("[1, 2, 3, 4]", "[4]")),
            "layer 4 (1-based) is in both linear_attn_config.kda_layers and .full_attn_layers: each layer must be in "
            "exactly one");
  EXPECT_EQ(error_of(kimi("[1, 2]", "[4]")),
            "layer 3 (1-based) is in neither linear_attn_config.kda_layers nor .full_attn_layers: each layer must be in "
            "exactly one");
  EXPECT_EQ(error_of(kimi("[0, 1, 2, 3]", "[4]")),
            "linear_attn_config.kda_layers entry must be a whole number from 1 to 9223372036854775807, got 0");
  EXPECT_EQ(error_of(kimi("[1, 1, 2, 3]", "[4]")), "linear_attn_config.kda_layers names layer 1 twice");
}

TEST(RecurrentConfig, MultimodalTextConfigAndNullAsAbsent) {
  const auto c = parse(R"({"model_type": "qwen3_5_moe", "text_config": {"model_type": "qwen3_5_moe_text",
      "num_key_value_heads": 2, "linear_num_key_heads": 2, "linear_key_head_dim": 4, "linear_num_value_heads": 4,
      "linear_value_head_dim": 4, "linear_conv_kernel_dim": 4, "num_hidden_layers": 4, "hybrid_override_pattern": null,
      "full_attention_interval": 4}})");
  const RecurrentConfig& r = recurrent_of(c);
  EXPECT_EQ(r.model_type_key, "model_type");
  EXPECT_EQ(r.dims[0].key, "text_config.linear_num_key_heads");
  EXPECT_EQ(r.rule, "text_config.full_attention_interval");
  EXPECT_EQ(kinds(r), "RRRA");
}

TEST(RecurrentConfig, JambaWidthIsAProduct) {
  const auto read = parse(R"({"model_type": "jamba", "num_key_value_heads": 8,
      "mamba_expand": 2, "hidden_size": 64, "mamba_d_state": 16, "mamba_d_conv": 4, "num_hidden_layers": 4,
      "attn_layer_period": 2, "attn_layer_offset": 1})");
  const RecurrentConfig& r = recurrent_of(read);
  EXPECT_EQ(r.dims[0].value, 128);
  EXPECT_EQ(r.dims[0].key, "mamba_expand * hidden_size");
  EXPECT_EQ(kinds(r), "RARA");
}

TEST(RecurrentConfig, StateDtypes) {
  const auto read = parse("{" + kNemotron + R"(, "num_hidden_layers": 1, "hybrid_override_pattern": "M",
                          "mamba_ssm_cache_dtype": "float32", "mamba_cache_dtype": "auto"})");
  const RecurrentConfig& r = recurrent_of(read);
  ASSERT_TRUE(r.ssm_dtype.has_value());
  EXPECT_EQ(r.ssm_dtype->bytes, 4);
  EXPECT_FALSE(r.conv_dtype.has_value());  // "auto": the engine's
  EXPECT_EQ(error_of("{" + kNemotron + R"(, "num_hidden_layers": 1, "hybrid_override_pattern": "M",
                     "mamba_ssm_cache_dtype": "int8"})"),
            "mamba_ssm_cache_dtype must be float32, float16, bfloat16 or auto, got \"int8\"");
}

// SPEC §16.5's bad input: each one line, and the config is not read.
TEST(RecurrentConfig, AConfigThatContradictsItselfIsOneLine) {
  const std::string layers = R"(, "num_hidden_layers": 2, "hybrid_override_pattern": "M*")";
  // Half-present family keys.
  EXPECT_EQ(error_of(R"({"model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": 8,
                        "mamba_head_dim": 4, "ssm_state_size": 16, "conv_kernel": 4)" + layers + "}"),
            "model_type nemotron_h: mamba2 needs mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size and "
            "conv_kernel; missing: n_groups");
  // Negative and zero dims.
  EXPECT_EQ(error_of(R"({"model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": -8,
                        "mamba_head_dim": 4, "n_groups": 2, "ssm_state_size": 16, "conv_kernel": 4)" + layers + "}"),
            "mamba_num_heads must be a whole number from 1 to 1048576, got -8");
  EXPECT_EQ(error_of(R"({"model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": 8,
                        "mamba_head_dim": 0, "n_groups": 2, "ssm_state_size": 16, "conv_kernel": 4)" + layers + "}"),
            "mamba_head_dim must be a whole number from 1 to 1048576, got 0");
  EXPECT_EQ(error_of(R"({"model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": 8,
                        "mamba_head_dim": 4, "n_groups": 2, "ssm_state_size": 16, "conv_kernel": 1)" + layers + "}"),
            "conv_kernel must be a whole number from 2 to 1048576, got 1");
  // The model's own config check (SPEC §16.1), naming the keys.
  EXPECT_EQ(error_of(R"({"model_type": "nemotron_h", "num_key_value_heads": 8, "mamba_num_heads": 8,
                        "mamba_head_dim": 4, "n_groups": 3, "ssm_state_size": 16, "conv_kernel": 4)" + layers + "}"),
            "mamba_num_heads and n_groups contradict each other: ValueError: num_heads 8 must be a multiple of n_groups 3");
  // Two keys stating one width.
  EXPECT_EQ(error_of(R"({"model_type": "granitemoehybrid", "num_key_value_heads": 4, "mamba_n_heads": 8,
                        "mamba_d_head": 4, "mamba_n_groups": 1, "mamba_d_state": 16, "mamba_d_conv": 4,
                        "mamba_expand": 2, "hidden_size": 8)" + layers + "}"),
            "mamba_expand * hidden_size = 16 differs from mamba_n_heads * mamba_d_head = 32: the dims contradict each "
            "other");
  // The rule must cover num_hidden_layers.
  EXPECT_EQ(error_of("{" + kNemotron + R"(, "num_hidden_layers": 3, "hybrid_override_pattern": "M*"})"),
            "hybrid_override_pattern gives 2 layers but num_hidden_layers is 3");
  EXPECT_EQ(error_of("{" + kNemotron + R"(, "num_hidden_layers": 2, "hybrid_override_pattern": "MX"})"),
            "hybrid_override_pattern has 'X' at layer 1: expected M (Mamba2), * (attention), - (MLP) or E (MoE)");
  EXPECT_EQ(error_of("{" + kNemotron + R"(, "hybrid_override_pattern": "M*"})"),
            "model_type nemotron_h: no num_hidden_layers for its layer rule to cover");
  // A recurrent family tpcheck does not know.
  EXPECT_EQ(error_of(R"({"model_type": "zamba2", "num_key_value_heads": 8, "mamba_d_state": 64})"),
            "model_type 'zamba2' has recurrent layers (mamba_d_state), a family tpcheck does not model; it reads "
            "nemotron_h, granitemoehybrid, bamba, falcon_h1, qwen3_next, qwen3_5, qwen3_5_moe, qwen3_5_text, "
            "qwen3_5_moe_text, kimi_linear, jamba, mamba and falcon_mamba");
  // Attention-only configs with layer_types are not recurrent (Gemma 3's sliding windows).
  const auto gemma = parse(R"({"model_type": "gemma3_text", "num_key_value_heads": 8,
      "layer_types": ["sliding_attention", "full_attention"]})");
  ASSERT_TRUE(std::holds_alternative<ModelConfig>(gemma));
  EXPECT_FALSE(std::get<ModelConfig>(gemma).recurrent.has_value());
}

}  // namespace
}  // namespace tpcheck::preflight
