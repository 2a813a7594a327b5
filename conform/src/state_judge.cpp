// The state judge (state_judge.hpp): SPEC §16.7's decoding and kinds on
// byte ranges, and its table of kinds.
#include "tpcheck/conform/state_judge.hpp"

#include <algorithm>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform::state {
namespace {

using bytes::bytes_text;
using bytes::MemoryMap;
using bytes::RankMemory;
using bytes::Side;
using Byte = StateByte<std::int64_t>;
using Run = StateRun<std::int64_t>;
using U = units_t<std::int64_t>;

std::uint64_t u64(const U& v) { return static_cast<std::uint64_t>(v); }

// Byte i of a run: its first byte counted on with the run's radices.
Byte advanced(const Run& run, std::uint64_t i) {
  Byte b = run.first;
  if (b.part == StatePart::Padding) {
    b.unit += i;
    return b;
  }
  const U e = U(run.element_bytes);
  U inner = U(b.byte) + i + (run.positions == 0 ? U(0) : b.position * e);
  b.byte = static_cast<std::int64_t>(inner % e);
  inner /= e;  // elements past the start of the first byte's unit (or element, when the position is fixed)
  if (run.positions == 0) {
    b.unit += inner;
    return b;
  }
  b.position = inner % run.positions;
  b.unit += inner / run.positions;
  return b;
}

// Bytes from b to the end of its element, and to the end of its unit.
std::uint64_t to_element_end(const Run& run, const Byte& b) { return u64(U(run.element_bytes - b.byte)); }
std::uint64_t to_unit_end(const Run& run, const Byte& b) {
  const U positions_left = run.positions == 0 ? U(0) : run.positions - 1 - b.position;
  return u64(positions_left * U(run.element_bytes)) + to_element_end(run, b);
}

}  // namespace

StateJudge::StateJudge(const StateMemory& memory, FindingSet& findings, std::string prefix, bool offsets)
    : RegionJudge(memory.map(), findings, std::move(prefix)), state_(memory), offsets_(offsets) {}

std::string StateJudge::describe_byte(const RankMemory& rank, std::int64_t region, std::uint64_t offset) const {
  return state_.describe(rank, region, offset);
}

void StateJudge::required(const RankMemory& dm, std::int64_t region,
                          std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) const {
  const std::uint64_t item = dm.item_length(region);
  const SideBytes<std::int64_t>& b = state_.side(Side::Decode);
  // A vLLM page's padding is nobody's state.
  const std::uint64_t state =
      b.container == StateContainer::VllmPage ? u64(b.conv_bytes + b.ssm_bytes) : item;
  const std::uint64_t lo = static_cast<std::uint64_t>(state_.request_slot(Side::Decode)) * item;
  out.emplace_back(lo, lo + state);
}

std::string StateJudge::required_text(const RankMemory& dm, std::uint64_t n) const {
  const std::string where = dm.slot_word + " " + decimal(state_.request_slot(Side::Decode)) + " of its " +
                            decimal(static_cast<std::int64_t>(state_.entry_count())) +
                            (state_.side(Side::Decode).container == StateContainer::VllmPage ? " layers" : " entries");
  if (state_.spec(Side::Decode).units) {
    return "every channel and head of d" + decimal(dm.rank) + "'s state (" + where +
           ") written from a prefill rank that holds it";
  }
  return "every byte of d" + decimal(dm.rank) + "'s state (" + where + ", " + bytes_text(n) +
         ") written from a prefill rank that holds it";
}

std::uint64_t StateJudge::count(std::int64_t region, std::uint64_t bytes) const {
  return state_.spec(Side::Decode).units ? bytes / state_.unit_bytes(region) : bytes;
}

std::string StateJudge::count_text(std::uint64_t n) const {
  if (!state_.spec(Side::Decode).units) return bytes_text(n);
  return decimal(static_cast<std::int64_t>(n)) + (n == 1 ? " unit" : " units") + " (channels and heads)";
}

void StateJudge::outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src,
                         std::uint64_t dst, std::uint64_t length) {
  if (!offsets_) {
    RegionJudge::outside(p, d, src_in, dst_in, src, dst, length);
    return;
  }
  // An offset-level answer reaches past its entry's slots: a neighbour of the request's slot.
  const auto what = [&] { return bytes_text(length) + " from " + place_text(src) + " to " + place_text(dst); };
  if (!dst_in) {
    add("write_outside_request", p, d, [&] { return "offsets within d" + decimal(d) + "'s request slot"; }, what);
  } else {
    add("wrong_slot", p, d, [&] { return "offsets within p" + decimal(p) + "'s request slot"; }, what);
  }
}

void StateJudge::blocks(std::int64_t p, std::int64_t d, std::int64_t region,
                        const std::vector<std::array<std::int64_t, 3>>& blocks, bool in_bytes) {
  const std::uint64_t unit = in_bytes ? 1 : state_.unit_bytes(region);
  for (const auto& block : blocks) {
    const std::int64_t src = block[0], dst = block[1], n = block[2];  // named, not bound: lambdas capture them
    if (n <= 0) {
      add("nonpositive_length", p, d, [] { return std::string("a positive length"); },
          [&] { return "a block of " + decimal(n) + (in_bytes ? " bytes" : " units"); });
      continue;
    }
    const auto scaled = [&](std::int64_t v) { return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) * unit); };
    transfer(p, d,
             {state_.request_address(Side::Prefill, p, region, scaled(src)),
              state_.request_address(Side::Decode, d, region, scaled(dst)), static_cast<std::uint64_t>(n) * unit});
  }
}

std::uint64_t StateJudge::piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src, const MemoryMap::Place& dst,
                                std::uint64_t length) {
  const RankMemory& sm = *src.rank;
  const RankMemory& dm = *dst.rank;
  const std::uint64_t item_s = sm.item_length(src.region), item_d = dm.item_length(dst.region);
  const std::uint64_t slot_s = src.offset / item_s, slot_d = dst.offset / item_d;
  const std::uint64_t q_s = src.offset % item_s, q_d = dst.offset % item_d;
  length = std::min({length, item_s - q_s, item_d - q_d});
  const StateEntry& es = state_.entry(src.region);
  const StateEntry& ed = state_.entry(dst.region);
  const Run rs = entry_run_at(state_.side(Side::Prefill), p, es.tensor, U(q_s));
  const Run rd = entry_run_at(state_.side(Side::Decode), d, ed.tensor, U(q_d));
  const bool slots_right = slot_d == static_cast<std::uint64_t>(state_.request_slot(Side::Decode)) &&
                           slot_s == static_cast<std::uint64_t>(state_.request_slot(Side::Prefill));
  if (slots_right) length = std::min({length, u64(rs.length), u64(rd.length)});
  decoded_ += length;
  const auto at = [&](const RankMemory& m, std::uint64_t slot, std::int64_t region, const Byte& b) {
    return m.name() + " " + state_.entry_name(region) + " " + m.slot_word + " " + decimal(static_cast<std::int64_t>(slot)) +
           " " + state_.what(b);
  };
  const auto moved = [&](std::uint64_t n, const Byte& a, const Byte& b) {
    return state_.amount(dst.region, n) + " from " + at(sm, slot_s, src.region, a) + " to " + at(dm, slot_d, dst.region, b);
  };
  const auto holds = [&](const Byte& b) {
    return at(dm, slot_d, dst.region, b) + " holds the prefill side's " + state_.entry_name(dst.region) + " " +
           sm.slot_word + " " + decimal(state_.request_slot(Side::Prefill)) + " " + state_.what(b);
  };
  if (slot_d != static_cast<std::uint64_t>(state_.request_slot(Side::Decode))) {
    add("write_outside_request", p, d,
        [&] { return "d" + decimal(d) + " written only in its request's " + dm.slot_word + " " +
                     decimal(state_.request_slot(Side::Decode)); },
        [&] { return moved(length, rs.first, rd.first); });
    return length;
  }
  if (!slots_right) {
    add("wrong_slot", p, d, [&] { return holds(rd.first); }, [&] { return moved(length, rs.first, rd.first); });
    return length;
  }
  const char* whole = nullptr;  // a kind the whole piece has
  if (rs.first.part == StatePart::Padding || rd.first.part == StatePart::Padding) {
    whole = "padding";
  } else if (es.layer != ed.layer) {
    whole = "wrong_layer";
  } else if (es.tensor != ed.tensor) {
    whole = "wrong_state_tensor";
  } else if (rs.first.part != rd.first.part || rs.first.segment != rd.first.segment) {
    whole = "wrong_segment";
  }
  if (whole != nullptr) {
    add(whole, p, d, [&] { return holds(rd.first); }, [&] { return moved(length, rs.first, rd.first); });
    return length;
  }
  // One segment (or the SSM state) on both sides: walk both runs, in stretches
  // that lie in one unit (same radices) or one element (otherwise) of each.
  const bool same_radices = rs.positions == rd.positions && rs.element_bytes == rd.element_bytes;
  std::uint64_t i = 0;
  while (i < length) {
    const Byte a = advanced(rs, i), b = advanced(rd, i);
    const char* kind = nullptr;
    std::uint64_t step = std::min(to_element_end(rs, a), to_element_end(rd, b));
    if (a == b) {
      if (same_radices) step = length - i;  // in step from here to the end of the piece
    } else if (a.unit != b.unit) {
      kind = "wrong_channels";
      if (same_radices) step = a.position == b.position && a.byte == b.byte ? length - i : std::min(to_unit_end(rs, a), to_unit_end(rd, b));
    } else if (a.position != b.position) {
      kind = "wrong_position";
    } else {
      kind = "misaligned_in_element";
    }
    step = std::min(step, length - i);
    if (kind == nullptr) {
      written(d, dst.region, dst.offset + i, step);
    } else {
      add(kind, p, d, [&] { return holds(b); }, [&] { return moved(step, a, b); });
    }
    i += step;
  }
  return length;
}

const std::vector<KindInfo>& state_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    const auto failure = failure_kind;
    const auto info = note_kind;
    std::vector<KindInfo> k = {
        // §14B.5's memory and engine kinds, as they are
        failure("src_outside_region", "Reads outside the sender's registered memory",
                "reads another buffer's bytes, or NIXL fails with NIXL_ERR_NOT_FOUND"),
        failure("dst_outside_region", "Writes outside the receiver's registered memory",
                "writes memory the decode rank never offered (another rank's or another buffer's)"),
        failure("refused", "The send returned a failure", "a loud failure: the session is marked failed"),
        failure("raises:", "The method raised", "a loud failure: the decode rank gets no state from this prefill rank"),
        failure("non_integer_address", "An address that is not an integer",
                "addresses (or offsets) were computed in floating point: the engine gets rounded addresses, or refuses "
                "them"),
        failure("address_not_u64", "An address outside [0, 2^64)", "an address overflowed"),
        failure("nonpositive_length", "A transfer of length zero or less", "the engine refuses it, or moves nothing"),
        failure("desc_count_mismatch", "Source and destination counts differ",
                "NIXL rejects the transfer: the request fails"),
        failure("length_mismatch", "Paired rows of different lengths", "NIXL rejects the pair: the request fails"),
        failure("malformed_blocks", "An answer that is not blocks",
                "an offset-level answer that is not (source, destination, length) integers: its caller fails, or "
                "moves what it makes of it"),
        // §16.7, in its order
        failure("write_outside_request", "Writes outside the request's state",
                "corrupts another request's state, or the padding slot"),
        failure("wrong_slot", "Reads another slot", "the decode rank resumes another request's state"),
        failure("padding", "Moves a page's padding",
                "garbage read into the state, or a write nobody reads"),
        failure("wrong_layer", "Layers crossed", "one layer resumes another layer's state"),
        failure("wrong_state_tensor", "Conv and temporal state crossed",
                "the conv window holds SSM bytes, or the reverse"),
        failure("wrong_segment", "Another segment's bytes",
                "the kernel reads the wrong projection (B in C's place, SSM read as C)"),
        failure("wrong_channels", "Other channels or heads", "the right projection, other heads' data"),
        failure("wrong_position", "Another row or element", "a shifted window, a transposed matrix"),
        failure("misaligned_in_element", "Shifted inside an element", "values cut across elements"),
        failure("unwritten", "State never written",
                "the decode rank resumes stale state, silently"),
        failure("wrong_split", "A split unlike the model's",
                "a split's widths, rows or element size differ from the model's: every read built on it lands in the "
                "wrong place"),
        failure("inexact_ceil", "A block count off in floating point",
                "blocks past the state are read, or state blocks are skipped"),
        info("redundant", "Written more than once",
             "replicas write the same bytes: allowed where every writer writes and the decode side waits for all of "
             "them (SGLang)"),
        info("whole_slot_fallback", "The whole-slot path",
             "the method took its whole-slot path: the bytes are still judged"),
        failure("accepts_invalid", "Moves state for an invalid sizing",
                "state moves where the model does not hold: see the nondiv: kinds for what it does"),
    };
    const std::size_t own = k.size();
    for (std::size_t i = 0; i < own; ++i) {
      if (k[i].id != "accepts_invalid") k.push_back(nondiv_twin(k[i], "the connector"));
    }
    k.push_back(failure("crashed", "The configuration could not be run",
                        "the child died or answered nothing readable for this configuration"));
    k.push_back(failure("timed_out", "The configuration did not finish in time",
                        "the calls of this configuration did not return within the budget: the worker would hang"));
    return k;
  }();
  return kinds;
}

Binding state_binding(std::string name, const ProfileOptions& options, bool not_divisible, const Relation& relation) {
  Binding b = configuration_binding(std::move(name), state_params(options.families), relation);
  const std::vector<StateFamily> families = options.families;
  b.cases = [families, not_divisible](const GridBounds& bounds) { return state_cases(bounds, families, not_divisible); };
  b.kinds = state_kinds;
  b.state = true;
  return b;
}

}  // namespace tpcheck::conform::state
