// Each connector's handling of the recurrent state (state_rules.hpp), as
// SPEC §16.5 states its code: its refusals, in the order the code raises
// them, and the bytes its rule moves for each decode rank.
#include "tpcheck/preflight/state_rules.hpp"

#include <numeric>
#include <vector>

#include "tpcheck/render.hpp"

namespace tpcheck::preflight {
namespace {

using I = std::int64_t;
using U = StateUnits;

StateVerdict with(StateServing serving, std::string error) {
  StateVerdict v;
  v.serving = serving;
  v.error = std::move(error);
  return v;
}

// The two sides as connector c's engine keeps them.
struct Sides {
  StateSideBytes prefill, decode;
};

// vLLM pages state and attention in one pool of equal pages (SPEC §16.3):
// a state page is padded to the attention page, whose size follows the KV
// heads a rank holds (a share of them, one when heads are replicated, the
// latent vector under MLA). Mooncake slices pages by that ratio, and checks
// it, so the padded pages keep it: page(T) = X / u(T), u the heads a rank
// holds a share of, X the smallest multiple of lcm(u(P), u(D)) at least
// every side's state.
std::pair<U, U> mooncake_pages(I P, I D, const U& state_p, const U& state_d, const AttentionShape& a) {
  const auto units = [&](I T) -> I { return !a.present ? T : a.mla ? 1 : std::min(T, a.kv_heads); };
  const I up = units(P), ud = units(D);
  const U step = U(std::lcm(up, ud));
  const U need = std::max(U(state_p * U(up)), U(state_d * U(ud)));
  const U x = (need + step - 1) / step * step;
  return {U(x / U(up)), U(x / U(ud))};
}

Outcome<Sides> sides_of(Connector c, I P, I D, const HybridState& s, const AttentionShape& a) {
  const StateFamily family = s.dims.family;
  const bool vllm = c == Connector::Nixl || c == Connector::Mooncake || c == Connector::MoRIIO || c == Connector::General;
  const auto side = [&](I T, const StateSide& x, const U& page) {
    // SGLang keeps KDA's conv state as (K-1, C); its other conv states, and TensorRT-LLM's, are (C, K-1).
    const ConvOrder order = vllm                                               ? x.layout
                            : c == Connector::SGLang && family == StateFamily::Kda ? ConvOrder::StateFirst
                                                                                   : ConvOrder::DimFirst;
    return side_state_bytes(T, s.dims, order, vllm ? StateContainer::VllmPage : StateContainer::SglangPool, x.window,
                            x.conv_bytes, ssm_element_bytes(x, c, family), page);
  };
  Outcome<StateSideBytes> p = side(P, s.prefill, U(0)), d = side(D, s.decode, U(0));
  if (!p.ok()) return p.failure();
  if (!d.ok()) return d.failure();
  if (c == Connector::Mooncake) {
    const auto [page_p, page_d] = mooncake_pages(P, D, p.value().page_bytes, d.value().page_bytes, a);
    p = side(P, s.prefill, page_p);
    d = side(D, s.decode, page_d);
    if (!p.ok()) return p.failure();
    if (!d.ok()) return d.failure();
  }
  return Sides{p.value(), d.value()};
}

U conv_row_bytes(const StateSideBytes& side) { return U(U(side.rows) * U(side.e_conv)); }
U head_bytes(const StateSideBytes& side) { return U(side.state.head_elements * U(side.e_ssm)); }

// vLLM's NIXL "3-read" worker rule (SPEC §16.7): D >= P, d reads its slice of
// p = d // a at remote offsets placed by d's own segment widths times the
// ratio a; P > D, each of d's rows splits into a pieces, piece j from prefill
// rank d * a + j at offsets of d's widths divided by a. DS pages.
std::vector<StateWrite> nixl_writes(const Sides& s, I P, I D, I d) {
  std::vector<StateWrite> out;
  const StateSideBytes& local = s.decode;
  const U row = conv_row_bytes(local);
  if (D >= P) {
    const I a = D / P, p = d / a, offset = d % a;
    for (const ConvSegment<I>& seg : local.state.segments()) {
      const U bytes = seg.width * row;
      out.push_back({StateEntry::Page, p, U(U(a) * seg.loc * row + U(offset) * bytes), U(seg.loc * row), bytes});
    }
    out.push_back({StateEntry::Page, p, U(s.prefill.conv_bytes + U(offset) * local.ssm_bytes), local.conv_bytes,
                   local.ssm_bytes});
    return out;
  }
  const I a = P / D;
  U remote = 0;
  for (const ConvSegment<I>& seg : local.state.segments()) {
    const U piece = seg.width * row / U(a);
    for (I j = 0; j < a; ++j) out.push_back({StateEntry::Page, d * a + j, remote, U(seg.loc * row + U(j) * piece), piece});
    remote += piece;
  }
  const U piece = local.ssm_bytes / U(a);
  for (I j = 0; j < a; ++j) {
    out.push_back({StateEntry::Page, d * a + j, s.prefill.conv_bytes, U(local.conv_bytes + U(j) * piece), piece});
  }
  return out;
}

// vLLM's Mooncake: whole pages at P = D; otherwise no state plan, its KV
// planner (SPEC §13) on the padded pages: D > P, d takes its slice of
// p = d // a; P > D, each window rank writes its page at its slot of d's;
// with the producer's KV replicated (MLA, or P above the heads), whole pages,
// and for P > D only from every a-th prefill rank.
std::vector<StateWrite> mooncake_writes(const Sides& s, I P, I D, I d, bool replicated) {
  const U page_p = s.prefill.page_bytes, page_d = s.decode.page_bytes;
  if (P == D) return {{StateEntry::Page, d, U(0), U(0), page_p}};
  if (D > P) {
    const I a = D / P;
    if (replicated) return {{StateEntry::Page, d / a, U(0), U(0), page_p}};
    return {{StateEntry::Page, d / a, U(U(d % a) * page_d), U(0), page_d}};
  }
  std::vector<StateWrite> out;
  const I a = P / D;
  for (I j = 0; j < a; ++j) {
    const I p = d * a + j;
    if (replicated) {
      if (p % a == 0) out.push_back({StateEntry::Page, p, U(0), U(0), page_p});
    } else {
      out.push_back({StateEntry::Page, p, U(0), U(U(j) * page_p), page_p});
    }
  }
  return out;
}

// SGLang's slice blocks (SPEC §16.6: compute_mamba_state_slice_blocks), in
// units of the sliced axis, for sender p and receiver d: one block unless
// `groups` (the full widths of independently sharded segments) is given and
// sums to the sender's width times P; then one block per group.
struct Block {
  U src, dst, n;
};

std::vector<Block> sglang_blocks(const U& src_dim, const U& dst_dim, I P, I D, I d, I p, const std::vector<U>& groups) {
  U total = 0;
  for (const U& g : groups) total += g;
  const bool per_group = !groups.empty() && total == src_dim * U(P);
  std::vector<Block> out;
  U src_off = 0, dst_off = 0;
  if (P > D) {
    const U writer = U(p % (P / D));
    if (!per_group) return {{U(0), U(writer * src_dim), src_dim}};
    for (const U& g : groups) {
      const U src_sub = g / U(P), dst_sub = g / U(D);
      out.push_back({src_off, U(dst_off + writer * src_sub), src_sub});
      src_off += src_sub;
      dst_off += dst_sub;
    }
    return out;
  }
  if (!per_group) return {{U(U(d) * dst_dim % src_dim), U(0), dst_dim}};
  for (const U& g : groups) {
    const U src_sub = g / U(P), dst_sub = g / U(D);
    out.push_back({U(src_off + U(d) * dst_sub % src_sub), dst_off, dst_sub});
    src_off += src_sub;
    dst_off += dst_sub;
  }
  return out;
}

// SGLang (SPEC §16.5, the pool's registered metadata of §16.7): whole slots
// at P = D; otherwise each target sends slice blocks of the conv slot (GDN
// and KDA register their segments' widths, Mamba2 and Mamba1 none) and of
// the temporal slot (heads).
std::vector<StateWrite> sglang_writes(const Sides& s, I P, I D, I d) {
  if (P == D) {
    return {{StateEntry::Conv, d, U(0), U(0), s.prefill.conv_bytes}, {StateEntry::Ssm, d, U(0), U(0), s.prefill.ssm_bytes}};
  }
  std::vector<U> groups;
  const StateFamily family = s.prefill.state.family;
  if (family == StateFamily::Gdn || family == StateFamily::Kda) {
    for (const ConvSegment<I>& seg : s.prefill.state.segments()) groups.push_back(seg.full);
  }
  std::vector<I> senders;
  if (D > P) {
    senders.push_back(d / (D / P));
  } else {
    for (I j = 0; j < P / D; ++j) senders.push_back(d * (P / D) + j);
  }
  std::vector<StateWrite> out;
  const U e = U(s.prefill.e_conv);
  for (const I p : senders) {
    for (const Block& b : sglang_blocks(s.prefill.state.c_loc, s.decode.state.c_loc, P, D, d, p, groups)) {
      if (s.prefill.order == ConvOrder::DimFirst) {
        const U row = conv_row_bytes(s.prefill);
        out.push_back({StateEntry::Conv, p, U(b.src * row), U(b.dst * row), U(b.n * row)});
      } else {  // (K-1, C): the slice axis is 1, a block per row
        for (I t = 0; t < s.prefill.rows; ++t) {
          out.push_back({StateEntry::Conv, p, U((U(t) * s.prefill.state.c_loc + b.src) * e),
                         U((U(t) * s.decode.state.c_loc + b.dst) * e), U(b.n * e)});
        }
      }
    }
    const U head = head_bytes(s.prefill);
    for (const Block& b : sglang_blocks(U(s.prefill.state.h_loc), U(s.decode.state.h_loc), P, D, d, p, {})) {
      out.push_back({StateEntry::Ssm, p, U(b.src * head), U(b.dst * head), U(b.n * head)});
    }
  }
  return out;
}

// TensorRT-LLM's C++ transceiver in slot mode: the conv channel axis (and the
// SSM heads) split into equal contiguous parts per TP domain, DS.
std::vector<StateWrite> trtllm_slot_writes(const Sides& s, I P, I D, I d) {
  std::vector<StateWrite> out;
  const U row = conv_row_bytes(s.prefill), head = head_bytes(s.prefill);
  if (D >= P) {
    const I a = D / P, p = d / a;
    const U part = s.prefill.state.c_loc / U(a), heads = U(s.prefill.state.h_loc / a);
    out.push_back({StateEntry::Conv, p, U(U(d % a) * part * row), U(0), U(part * row)});
    out.push_back({StateEntry::Ssm, p, U(U(d % a) * heads * head), U(0), U(heads * head)});
    return out;
  }
  const I a = P / D;
  const U part = s.decode.state.c_loc / U(a), heads = U(s.decode.state.h_loc / a);
  for (I j = 0; j < a; ++j) {
    out.push_back({StateEntry::Conv, d * a + j, U(0), U(U(j) * part * row), U(part * row)});
    out.push_back({StateEntry::Ssm, d * a + j, U(0), U(U(j) * heads * head), U(heads * head)});
  }
  return out;
}

// The exception a connector raises, in its words.
std::string raises(const char* kind, const std::string& message) { return std::string(kind) + ": " + message; }

// Refusals before the sizes are compared: at worker init, or in the cache
// manager of each side.
std::optional<std::string> refuses_at_init(Connector c, I P, I D, const HybridState& s) {
  const StateFamily family = s.dims.family;
  const bool both_ds = s.prefill.layout == ConvOrder::DimFirst && s.decode.layout == ConvOrder::DimFirst;
  switch (c) {
    case Connector::Nixl:
      if (!both_ds) {
        return raises("AssertionError",
                      "3-read Mamba conv transfer requires DS conv state layout. Set VLLM_SSM_CONV_STATE_LAYOUT=DS");
      }
      if (family == StateFamily::Mamba1) {
        return raises("NotImplementedError",
                      "3-read conv transfer supports ('mamba2', 'gdn_attention'), got mamba_type='mamba1'.");
      }
      return std::nullopt;
    case Connector::MoRIIO:
      // The decode side reads (READ mode): it is local.
      if (P != D) {
        return raises("NotImplementedError", "heterogeneous-TP mamba/KDA transfer is not supported yet (local_tp=" +
                                                 std::to_string(D) + ", remote_tp=" + std::to_string(P) +
                                                 "); use equal prefill/decode TP for hybrid models");
      }
      if (family == StateFamily::Kda && !both_ds) {
        return raises("MoRIIOError", "MoRIIO KDA conv transfer requires the DS (dim-first) state layout");
      }
      return std::nullopt;
    case Connector::Trtllm:
    case Connector::TrtllmV2:
      for (const I T : {P, D}) {
        const RankState<I> own = state_ownership<I>(T, s.dims).value();
        U conv_dim = 0;
        for (const ConvSegment<I>& seg : own.segments()) conv_dim += seg.full;
        if (own.ssm_heads % T != 0) return raises("AssertionError", "mamba_num_heads must be divisible by tp_size");
        if (conv_dim % U(T) != 0) return raises("AssertionError", "conv_dim must be divisible by tp_size");
        if (c != Connector::TrtllmV2) continue;
        for (const ConvSegment<I>& seg : own.segments()) {
          if (seg.full % U(T) != 0) {
            return raises("ValueError",
                          "Disaggregated Mamba transfer requires each convolution state section to be divisible by "
                          "tp_size");
          }
        }
      }
      return std::nullopt;
    default: return std::nullopt;
  }
}

// SGLang's whole-slot path at P = D raises on slots of different sizes.
std::optional<std::string> sglang_slot_mismatch(const Sides& s) {
  for (const auto& [src, dst] : {std::pair{s.prefill.conv_bytes, s.decode.conv_bytes},
                                 std::pair{s.prefill.ssm_bytes, s.decode.ssm_bytes}}) {
    if (src != dst) {
      return raises("RuntimeError", "Prefill/Decode Mamba slot size mismatch (src=" + render(src) + ", dst=" +
                                        render(dst) +
                                        "). Configure matching persistent state layouts on both peers.");
    }
  }
  return std::nullopt;
}

}  // namespace

std::string failure_line(const Failure& f) {
  return f.message.empty() ? std::string(kind_name(f.kind)) : render(f);
}

std::int64_t ssm_element_bytes(const StateSide& side, Connector c, StateFamily family) {
  if (side.ssm_bytes) return *side.ssm_bytes;
  const bool vllm = c == Connector::Nixl || c == Connector::Mooncake || c == Connector::MoRIIO || c == Connector::General;
  return c == Connector::SGLang || (vllm && family == StateFamily::Kda) ? 4 : 2;
}

Outcome<StateSideBytes> side_state_bytes(I T, const StateDims<I>& dims, ConvOrder order, StateContainer container,
                                         I rows, I e_conv, I e_ssm, StateUnits page_bytes) {
  const Outcome<RankState<I>> own = state_ownership<I>(T, dims);
  if (!own.ok()) return own.failure();
  return side_bytes<I>(own.value(), order, container, rows, e_conv, e_ssm, page_bytes);
}

StateVerdict state_verdict(Connector c, I P, I D, const HybridState& s, const AttentionShape& attention) {
  for (const auto& [T, side] : {std::pair<I, const char*>{P, "prefill"}, std::pair<I, const char*>{D, "decode"}}) {
    const Outcome<StateShape<I>> shape = state_shape<I>(T, s.dims);
    if (!shape.ok()) {
      StateVerdict v = with(StateServing::DoesNotLoad, failure_line(shape.failure()));
      v.side = side;
      return v;
    }
  }
  if (auto refusal = refuses_at_init(c, P, D, s)) return with(StateServing::Refuses, *refusal);
  const bool trtllm = c == Connector::Trtllm || c == Connector::TrtllmV2;
  if (trtllm && s.dims.family == StateFamily::Mamba2 && s.dims.v[2] == 1 && std::max(P, D) > 1) {
    StateVerdict v = with(StateServing::Outside, "");
    v.why = "with one group its cache gives B and C G*N/T channels per rank, not the replicated layout the model "
            "describes";
    return v;
  }
  // The pair: the connectors that compare the sizes refuse what does not divide; SGLang and
  // TensorRT-LLM's Python transceiver move bytes for it.
  const bool runs_anything = c == Connector::SGLang || c == Connector::TrtllmV2;
  if (const Outcome<I> ratio = tp_ratio<I>(D, P); !ratio.ok()) {
    return with(runs_anything ? StateServing::Invalid : StateServing::Refuses, failure_line(ratio.failure()));
  }
  const Outcome<Sides> sides = sides_of(c, P, D, s, attention);
  if (!sides.ok()) return with(StateServing::Refuses, failure_line(sides.failure()));
  const StateSideBytes &prefill = sides.value().prefill, &decode = sides.value().decode;
  if (c == Connector::SGLang && P == D) {
    if (auto mismatch = sglang_slot_mismatch(sides.value())) return with(StateServing::Refuses, *mismatch);
  }
  const Outcome<None> pairing = state_pairing<I>(prefill.rows, decode.rows, prefill.e_conv, decode.e_conv,
                                                 prefill.e_ssm, decode.e_ssm);
  if (!pairing.ok()) {
    // The general rule is the model's: it refuses what the model calls invalid.
    return with(c == Connector::General ? StateServing::Refuses : StateServing::Invalid, failure_line(pairing.failure()));
  }
  StateVerdict v;
  if (c == Connector::Mooncake && P != D) v.why = "no state plan at P != D: its KV planner slices the state pages as KV";
  const bool replicated = attention.mla || (attention.present && P > attention.kv_heads);
  for (I d = 0; d < D; ++d) {
    std::vector<StateWrite> writes;
    switch (c) {
      case Connector::Nixl: writes = nixl_writes(sides.value(), P, D, d); break;
      case Connector::Mooncake: writes = mooncake_writes(sides.value(), P, D, d, replicated); break;
      case Connector::MoRIIO: writes = {{StateEntry::Page, d, U(0), U(0), prefill.page_bytes}}; break;
      case Connector::SGLang: writes = sglang_writes(sides.value(), P, D, d); break;
      case Connector::Trtllm: writes = trtllm_slot_writes(sides.value(), P, D, d); break;
      case Connector::TrtllmV2:  // its section rule is the plan on fully sharded sides
      case Connector::General: writes = plan_writes(prefill, decode, s.dims, P, D, d); break;
    }
    if (auto finding = judge_state_writes(prefill, decode, d, writes, c == Connector::SGLang)) {
      v.serving = StateServing::Misserves;
      v.decode_rank = d;
      v.finding = *finding;
      return v;
    }
  }
  v.why.clear();
  return v;
}

}  // namespace tpcheck::preflight
