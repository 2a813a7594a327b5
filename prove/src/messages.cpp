// The texts of every failure, as the SPEC (upstream's exact words) and the
// project's choices (docs/model-and-invariants.md, "Choices where the SPEC is silent") state them.
#include "tpcheck/prove/messages.hpp"

#include "tpcheck/render.hpp"

namespace tpcheck::prove {

const std::vector<MessageInfo>& message_infos() {
  using enum Message;
  constexpr ErrorKind V = ErrorKind::ValueError;
  static const std::vector<MessageInfo> infos = {
      {TpSizesMustBePositive, V, "TP sizes must be positive"},
      {LocalRankOutOfRange, V, "local_tp_rank {0} must be in [0, {1})"},
      {RemoteNotMultiple, V, "remote tp_size {0} must be a multiple of local tp_size {1} for heterogeneous-TP P/D"},
      {LocalNotMultiple, V, "local tp_size {0} must be a multiple of remote tp_size {1} for heterogeneous-TP P/D"},
      {LocalNotDivisible, ErrorKind::AssertionError,
       "Local tensor parallel size {0} is not divisible by remote tensor parallel size {1}."},
      {RemoteNotDivisible, ErrorKind::AssertionError,
       "Remote tensor parallel size {0} is not divisible by local tensor parallel size {1}."},
      {LocalSizeNotPositive, V, "local tp_size {0} must be positive"},
      {RemoteSizeNotPositive, V, "remote tp_size {0} must be positive"},
      {TpSizeNotPositive, V, "tp_size {0} must be positive"},
      {HeadsNotPositive, V, "total_num_kv_heads {0} must be positive"},
      {TpRankOutOfRange, V, "tp_rank {0} must be in [0, {1})"},
      {HeadOutOfRange, V, "head {0} must be in [0, {1})"},
      {HeadsNotShardable, V, "total_num_kv_heads {0} cannot be sharded over tp_size {1}: one must divide the other"},
      {GuardNotPositive, V, "TP sizes and total_num_kv_heads must be positive"},
      {GuardNeedsReplicatedHeads, ErrorKind::NotImplementedError,
       "MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
       "Got total_num_kv_heads={0}, local_tp_size={1}, remote_tp_size={2}."},
      {PrefillSizeNotPositive, V, "prefill tp_size {0} must be positive"},
      {DecodeSizeNotPositive, V, "decode tp_size {0} must be positive"},
      {DecodeRankOutOfRange, V, "decode_tp_rank {0} must be in [0, {1})"},
      {PrefillRankOutOfRange, V, "prefill_tp_rank {0} must be in [0, {1})"},
      {HeadsNotShardableOverPrefill, V,
       "total_num_kv_heads {0} cannot be sharded over prefill tp_size {1}: one must divide the other"},
      {HeadsNotShardableOverDecode, V,
       "total_num_kv_heads {0} cannot be sharded over decode tp_size {1}: one must divide the other"},
      {WindowTooLong, V, "window of local_tp_rank {0} has {1} elements, more than the model lists (1048576)"},
      {PlanTooLong, V, "plan of decode_tp_rank {0} has {1} elements, more than the model lists (1048576)"},
      {ProducerRankOutOfRange, V, "producer_tp_rank {0} must be in [0, {1})"},
      {ConsumerNotMultiple, V,
       "consumer tp_size {0} must be a multiple of producer tp_size {1} for heterogeneous-TP P/D"},
      {ProducerNotMultiple, V,
       "producer tp_size {0} must be a multiple of consumer tp_size {1} for heterogeneous-TP P/D"},
      {PortTpSizeNotPositive, V, "tp_size must be positive"},
      {DpRankNegative, V, "dp_rank {0} must be non-negative"},
      {NumHostsNotPositive, V, "num_hosts {0} must be positive"},
      {HostRankOutOfRange, V, "rank {0} must be in [0, {1})"},
      {RanksNotSpreadOverHosts, V, "tp_size {0} does not spread evenly over num_hosts {1}"},
      {DpSizeNotPositive, V, "dp_size {0} must be positive"},
      {BasePortNotPositive, V, "base port {0} must be positive"},
      {PortsExceedRange, V, "ports {0}..{1} exceed 65535"},
      {AssertionWithoutText, ErrorKind::AssertionError, ""},
      {Mamba2DimsNotPositive, V, "mamba2 dims must be positive: num_heads={0}, head_dim={1}, n_groups={2}, d_state={3}"},
      {GdnDimsNotPositive, V,
       "gdn dims must be positive: linear_num_key_heads={0}, linear_key_head_dim={1}, linear_num_value_heads={2}, "
       "linear_value_head_dim={3}"},
      {KdaDimsNotPositive, V, "kda dims must be positive: num_heads={0}, head_dim={1}"},
      {Mamba1DimsNotPositive, V, "mamba1 dims must be positive: intermediate_size={0}, d_state={1}"},
      {HeadsNotMultipleOfGroups, V, "num_heads {0} must be a multiple of n_groups {1}"},
      {ValueHeadsNotMultipleOfKeyHeads, V, "linear_num_value_heads {0} must be a multiple of linear_num_key_heads {1}"},
      {TpDoesNotDivideMambaHeads, ErrorKind::AssertionError, "Tensor parallel world size must divide num heads."},
      {TpDoesNotDivideMambaGroups, ErrorKind::AssertionError,
       "If tensor parallel world size does not divide num_groups, then num_groups must equal 1."},
      {GdnKeyHeadsNotSharded, V,
       "GDN cannot shard linear_num_key_heads {0} over tp_size {1}: it never replicates key heads"},
      {Mamba1NotDivisible, ErrorKind::AssertionError, "{0} is not divisible by {1}"},
      {StatePlanTooLong, V, "state plan of decode_tp_rank {0} has {1} elements, more than the model lists (1048576)"},
      {StateServedTooLong, V,
       "state served by prefill_tp_rank {0} has {1} elements, more than the model lists (1048576)"},
      {PrefillWindowLengthNotPositive, V, "prefill conv window length {0} must be positive"},
      {DecodeWindowLengthNotPositive, V, "decode conv window length {0} must be positive"},
      {PrefillConvElementNotPositive, V, "prefill conv element size {0} must be positive"},
      {DecodeConvElementNotPositive, V, "decode conv element size {0} must be positive"},
      {PrefillSsmElementNotPositive, V, "prefill SSM element size {0} must be positive"},
      {DecodeSsmElementNotPositive, V, "decode SSM element size {0} must be positive"},
      {WindowLengthsDiffer, V,
       "prefill conv window length {0} differs from decode's {1}: K-1+num_speculative_tokens must match on both sides"},
      {ConvElementSizesDiffer, V, "prefill conv element size {0} differs from decode's {1}"},
      {SsmElementSizesDiffer, V, "prefill SSM element size {0} differs from decode's {1}"},
  };
  return infos;
}

const MessageInfo* message_info(int id) {
  const auto& infos = message_infos();
  if (id < 1 || id > static_cast<int>(infos.size())) return nullptr;
  return &infos[static_cast<std::size_t>(id - 1)];
}

std::string render_failure(const MessageInfo& info, const std::vector<BigInt>& args) {
  std::string text;
  for (std::size_t i = 0; i < info.format.size(); ++i) {
    const char c = info.format[i];
    const std::size_t arg = c == '{' && i + 2 < info.format.size() && info.format[i + 2] == '}'
                                ? static_cast<std::size_t>(info.format[i + 1] - '0')
                                : kMessageArgs;
    if (arg < kMessageArgs && arg < args.size()) {
      text += decimal(args[arg]);
      i += 2;
    } else {
      text += c;
    }
  }
  return std::string(kind_name(info.kind)) + ": " + text;
}

}  // namespace tpcheck::prove
