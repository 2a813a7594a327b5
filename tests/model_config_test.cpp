// Reading the KV head count and MLA from a Hugging Face config.json the way
// vLLM does (preflight/model_config.hpp): which key wins, nesting, and every
// malformed value. The committed configs are read by the CLI tests.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "tpcheck/preflight/model_config.hpp"

namespace tpcheck::preflight {
namespace {

constexpr std::int64_t kMaxHeads = 1 << 20;

// "KEY=COUNT" (or "KEY=MLA") of a config text, or its error.
std::string read(const std::string& json) {
  const auto c = model_config_from_text(json, kMaxHeads);
  if (const auto* error = std::get_if<std::string>(&c)) return "error: " + *error;
  const ModelConfig& m = std::get<ModelConfig>(c);
  return m.key + "=" + (m.mla ? "MLA" : std::to_string(m.kv_heads)) + (m.fallback ? " (fallback)" : "");
}

TEST(ModelConfig, KeyValueHeadsBeforeAttentionHeads) {
  EXPECT_EQ(read(R"({"num_attention_heads": 32, "num_key_value_heads": 8})"), "num_key_value_heads=8");
  EXPECT_EQ(read(R"({"num_attention_heads": 32})"), "num_attention_heads=32 (fallback)");
  // A key set to null is absent (vLLM's getattr(...) is not None).
  EXPECT_EQ(read(R"({"num_attention_heads": 32, "num_key_value_heads": null})"), "num_attention_heads=32 (fallback)");
}

TEST(ModelConfig, VllmOrderOfTheKvHeadKeys) {
  // n_head_kv, num_kv_heads, num_key_value_heads, multi_query_group_num: first present wins.
  EXPECT_EQ(read(R"({"multi_query_group_num": 2, "num_key_value_heads": 4, "num_kv_heads": 8, "n_head_kv": 16})"),
            "n_head_kv=16");
  EXPECT_EQ(read(R"({"multi_query_group_num": 2, "num_key_value_heads": 4, "num_kv_heads": 8})"), "num_kv_heads=8");
  EXPECT_EQ(read(R"({"multi_query_group_num": 2, "num_key_value_heads": 4})"), "num_key_value_heads=4");
  EXPECT_EQ(read(R"({"multi_query_group_num": 2, "num_attention_heads": 32})"), "multi_query_group_num=2");
  // Hugging Face's other names for the attention heads.
  EXPECT_EQ(read(R"({"n_head": 71})"), "n_head=71 (fallback)");
  EXPECT_EQ(read(R"({"n_heads": 48})"), "n_heads=48 (fallback)");
}

TEST(ModelConfig, MultiQueryMeansOneHeadExceptFalconsNewDecoder) {
  EXPECT_EQ(read(R"({"model_type": "falcon", "multi_query": true, "num_attention_heads": 71})"), "multi_query=1");
  EXPECT_EQ(read(R"({"model_type": "gpt_bigcode", "multi_query": true, "n_head": 48})"), "multi_query=1");
  EXPECT_EQ(read(R"({"model_type": "falcon", "multi_query": false, "num_attention_heads": 71})"),
            "num_attention_heads=71 (fallback)");
  for (const char* type : {"falcon", "RefinedWeb", "RefinedWebModel"}) {
    EXPECT_EQ(read(std::string(R"({"model_type": ")") + type +
                   R"(", "new_decoder_architecture": true, "multi_query": true, "num_kv_heads": 8})"),
              "num_kv_heads=8")
        << type;
  }
  // Only Falcon's new architecture overrides multi_query.
  EXPECT_EQ(read(R"({"model_type": "llama", "new_decoder_architecture": true, "multi_query": true, "num_kv_heads": 8})"),
            "multi_query=1");
}

TEST(ModelConfig, DbrxAndMptReadAttnConfig) {
  EXPECT_EQ(read(R"({"model_type": "dbrx", "n_heads": 48, "attn_config": {"kv_n_heads": 8}})"),
            "attn_config.kv_n_heads=8");
  EXPECT_EQ(read(R"({"model_type": "mpt", "n_heads": 32, "attn_config": {"kv_n_heads": 4}})"),
            "attn_config.kv_n_heads=4");
  EXPECT_EQ(read(R"({"model_type": "mpt", "n_heads": 32, "attn_config": {"alibi": true}})"), "n_heads=32 (fallback)");
  // Other model types ignore attn_config, as vLLM does.
  EXPECT_EQ(read(R"({"model_type": "llama", "num_attention_heads": 32, "attn_config": {"kv_n_heads": 8}})"),
            "num_attention_heads=32 (fallback)");
}

TEST(ModelConfig, MultimodalModelsNestTheTextModel) {
  // The vision tower's heads and top-level keys do not count once text_config is there.
  EXPECT_EQ(read(R"({"model_type": "llava", "num_key_value_heads": 99, "vision_config": {"num_attention_heads": 16},
                     "text_config": {"num_attention_heads": 32, "num_key_value_heads": 8}})"),
            "text_config.num_key_value_heads=8");
  EXPECT_EQ(read(R"({"text_config": {"kv_lora_rank": 512}})"), "text_config.kv_lora_rank=MLA");
  EXPECT_EQ(read(R"({"text_config": null, "num_key_value_heads": 8})"), "num_key_value_heads=8");
  EXPECT_EQ(read(R"({"text_config": [1], "num_key_value_heads": 8})"), "error: text_config must be an object, got [1]");
}

TEST(ModelConfig, KvLoraRankMeansMla) {
  EXPECT_EQ(read(R"({"model_type": "deepseek_v3", "kv_lora_rank": 512, "num_key_value_heads": 128})"), "kv_lora_rank=MLA");
  EXPECT_EQ(read(R"({"kv_lora_rank": null, "num_key_value_heads": 16})"), "num_key_value_heads=16");
  const auto c = model_config_from_text(R"({"kv_lora_rank": 512})", kMaxHeads);
  ASSERT_TRUE(std::holds_alternative<ModelConfig>(c));
  EXPECT_EQ(std::get<ModelConfig>(c).kv_heads, 1);  // every rank holds the one latent vector
  EXPECT_EQ(describe(std::get<ModelConfig>(c)), "MLA from kv_lora_rank = 512 (one latent vector, which every rank holds)");
}

TEST(ModelConfig, EveryBadValueIsOneLine) {
  const std::string bound = " must be a whole number from 1 to 1048576, got ";
  EXPECT_EQ(read(R"({"num_key_value_heads": 0})"), "error: num_key_value_heads" + bound + "0");
  EXPECT_EQ(read(R"({"num_key_value_heads": -8})"), "error: num_key_value_heads" + bound + "-8");
  EXPECT_EQ(read(R"({"num_key_value_heads": 1048577})"), "error: num_key_value_heads" + bound + "1048577");
  EXPECT_EQ(read(R"({"num_key_value_heads": 18446744073709551615})"),
            "error: num_key_value_heads" + bound + "18446744073709551615");
  EXPECT_EQ(read(R"({"num_key_value_heads": 1e40})"), "error: num_key_value_heads" + bound + "1e+40");
  EXPECT_EQ(read(R"({"num_key_value_heads": 8.0})"), "error: num_key_value_heads" + bound + "8.0");
  EXPECT_EQ(read(R"({"num_key_value_heads": true})"), "error: num_key_value_heads" + bound + "true");
  EXPECT_EQ(read(R"({"num_key_value_heads": "8\n"})"), "error: num_key_value_heads" + bound + "\"8\\n\"");
  EXPECT_EQ(read(R"({"kv_lora_rank": -1})"), "error: kv_lora_rank must be a whole number from 1 to 1073741824, got -1");
  EXPECT_EQ(read(R"({"multi_query": 1, "num_attention_heads": 4})"), "error: multi_query must be true or false, got 1");
  EXPECT_EQ(read(R"({"model_type": "dbrx", "attn_config": 8})"), "error: attn_config must be an object, got 8");
  EXPECT_EQ(read("[]"), "error: not a JSON object");
  EXPECT_EQ(read("{}").rfind("error: no KV head count: ", 0), 0u);
  EXPECT_EQ(read("").rfind("error: not JSON: parse error at line 1, column 1: ", 0), 0u) << read("");
  EXPECT_EQ(read("{\"a\":\n\n  nope}").rfind("error: not JSON: parse error at line 3, column 4: ", 0), 0u)
      << read("{\"a\":\n\n  nope}");
  // A long value is cut short, and no message has a line break.
  const std::string long_value = read(R"({"num_key_value_heads": ")" + std::string(500, 'x') + "\"}");
  EXPECT_LT(long_value.size(), 120u);
  EXPECT_EQ(long_value.find('\n'), std::string::npos);
}

TEST(ModelConfig, ReadingAFile) {
  const auto missing = read_model_config("/nonexistent/config.json", kMaxHeads);
  EXPECT_EQ(std::get<std::string>(missing), "--model-config '/nonexistent/config.json': No such file or directory");
  EXPECT_EQ(std::get<std::string>(read_model_config("/", kMaxHeads)), "--model-config '/': not a regular file");
  // A device never ends: refused before reading.
  EXPECT_EQ(std::get<std::string>(read_model_config("/dev/zero", kMaxHeads)),
            "--model-config '/dev/zero': not a regular file");
}

}  // namespace
}  // namespace tpcheck::preflight
