#include "tpcheck/conform/binding_text.hpp"

#include <vector>

namespace tpcheck::conform {
namespace {

std::string code(const std::string& text) { return "`" + text + "`"; }

// "`a` or `b` or `c`".
std::string alternatives(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " or ") + code(n);
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The model operation called with the case parameters its arguments come from.
std::string model_call(const Binding& b) {
  std::vector<std::string> args;
  for (std::size_t k : b.model_from_case) args.push_back(k < b.params.size() ? b.params[k].name : "?");
  return b.model_op + "(" + joined(args) + ")";
}

}  // namespace

std::string looked_for(const Binding& b) {
  const CallShape& c = b.call;
  if (!c.methods.empty()) return "method " + alternatives(c.methods) + " of " + alternatives(c.classes);
  std::string out = "function " + alternatives(c.functions);
  if (!c.instance_argument.empty()) out += ", given an instance of " + alternatives(c.classes);
  return out;
}

std::string called_as(const Binding& b) {
  const CallShape& c = b.call;
  if (c.positional) return code("(" + joined(b.param_names()) + ")");
  std::vector<std::string> attributes, args;
  for (const Attribute& a : c.attributes) attributes.push_back(code(a.name + " = " + a.value));
  for (const CallArg& a : c.args) {
    args.push_back(code(a.name + "=" + a.value) + (a.optional ? " (if it has it" + (a.when.empty() ? "" : ", when " + a.when) + ")" : ""));
  }
  std::string out;
  if (!attributes.empty()) {
    out = (c.instance_argument.empty() ? "on an instance with " : code(c.instance_argument) + ": an instance with ") +
          joined(attributes);
  }
  if (!args.empty()) out += (out.empty() ? "" : "; ") + joined(args);
  if (!c.driver.empty()) {
    // A whole configuration per case: the driver makes each decode rank's or pair's calls.
    return out + (out.empty() ? "" : "; ") + "every call of each configuration over " + joined(b.param_names()) +
           " (a driver of the child makes them)";
  }
  return out + "; cases over " + joined(b.param_names());
}

std::string compared_with(const Binding& b) {
  switch (b.relation) {
    case Relation::Exact:
      return code(model_call(b)) + ": value or exact error";
    case Relation::CountForEveryProducerRank:
      return code(b.model_op + "(p, P, D)") + " for every prefill rank `p`: one count must fit them all, and it "
             "fails where they fail";
    case Relation::WindowCompletionCount:
      return "`|window(p, P, D)|`, the same for every prefill rank `p`; a pair that is not divisible fails as "
             "`tp_ratio(D, P)`";
    case Relation::NixlMapping:
      return code(b.model_op + "(d, P, D, H, MLA)") + ": the sources, the offset (when `D > P`), the slots (when "
             "`P > D`), `local_consumers` (when present); a sizing NIXL refuses at handshake is not compared";
    case Relation::SenderPlan:
      return "the copy from `p` of " + code(b.model_op + "(d, P, D, H, MLA)") + ", in bytes (" +
             std::to_string(kBytesPerHead) + " per head); `(False, ...)` when there is none";
    case Relation::AcceptsSizing:
      return "`None` on every sizing the connector accepts (SPEC §11)";
    case Relation::RankMapping:
      return "for every `d`: `target_tp_ranks` is `window(d, D, P)`, `target_tp_rank` its first, "
             "`required_dst_info_num` `max(1, D/P)`, `required_prefill_response_num` its writers (1 under MLA); a "
             "pair that is not divisible is refused (SPEC §14.1)";
    case Relation::HeadSliceDocumented:
      return "for every pair SGLang forms: the copy of `p` to `d`, the heads both hold (SPEC §14.2)";
    case Relation::HeadSliceAsRun:
      return "for every pair: the prefill call's start with the decode call's count and offset is the copy of `p` "
             "to `d` (SPEC §14.2)";
    case Relation::StagingLayout:
      return "for every `d`: a slot per writer, of the writer's copy for every token, layer, K and V (SPEC §14.3)";
    case Relation::SliceConfig:
      return "for every pair: the page and token sizes, and the copy of `p` to `d` in bytes (" +
             std::to_string(kBytesPerHead) + " per head) (SPEC §14.4)";
    case Relation::MooncakeTransfers:
    case Relation::NixlTransfers:
      return "every byte the transfers move, from the same layer, K or V, page position, token, head and byte of a "
             "sender that holds it, and every byte of each decode rank's request written (SPEC §14B)";
    case Relation::IndexFunction:
      return "every index exact, on lists of more than 2^31 rows (SPEC §14B.8)";
    case Relation::TrtllmTransceiver:
      if (b.name == "targetIRanks") {
        return "gen side: `window(d, D, P)` over the ctx stages whose layers overlap `d`'s, in range and in the "
               "serving DP group; ctx side: the gen ranks that connect to `p` (SPEC §15.2)";
      }
      if (b.name == "CacheFormatter::needSendCache") {
        return "whether `p` sends: exactly one replica of each head group does, the one the gen rank picks (SPEC "
               "§15.2)";
      }
      if (b.name == "CacheFormatter::pickRecvConnections") {
        return "the picked ranks are exactly those that send to `d`, and hold each (layer, head) of `d` once "
               "(SPEC §15.2)";
      }
      return "`false` only for MLA and for sides that differ in data type, kv factor, tokens per block, size per "
             "head, layer count or `cp`, and, where the PP sizes differ, for a side whose layer count its PP size "
             "does not divide (a documented refusal of versions that check it, not compared) (SPEC §15.2)";
    case Relation::PeerFindOverlap:
      return "for every `r`: `(overlap, start, end)` with `range(start, end)` = `window(r, L, R)`; a pair that is not "
             "divisible is refused, and `end` never past `R` (SPEC §15.1)";
    case Relation::PeerHeadOffsets:
      return "for every pair that shares heads: the byte offsets of §6's copy in `p`'s and `d`'s heads (SPEC §15.1)";
    case Relation::PeerCompatible:
      return "through `register`, on both sides: every head-compatible sizing accepted, a peer with `cp` 2 (or, "
             "under MLA, 2 heads per rank) refused (SPEC §15.1)";
    case Relation::PeerOverlap:
      return "gen side: `.ranks` = the stage window, in range and in the serving DP group; ctx side: `len(.ranks)` "
             "= the gen ranks that ask it; the duplicate-head factors (SPEC §15.1, §15.4)";
    case Relation::PeerKvMap:
      return "for every pair that sends (the selection rule): every byte of each gen rank's blocks written once, "
             "from the same block, layer, K or V, head and byte of a ctx rank that holds it (SPEC §15.1)";
  }
  return "?";
}

}  // namespace tpcheck::conform
