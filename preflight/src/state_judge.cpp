// Judging a decode rank's state writes by runs (state_judge.hpp).
#include "tpcheck/preflight/state_judge.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace tpcheck::preflight {
namespace {

using I = std::int64_t;
using U = StateUnits;

// Under DS a run's bytes go through a channel's rows before the next channel:
// its pieces have no single row.
constexpr I kInterleaved = -1;

// A stretch [first, end) of an entry whose content advances with its bytes:
// byte q holds (part, segment, row, base + (q - first)), where the last
// coordinate counts bytes within the segment (or the SSM heads) across every
// rank: two bytes of two sides hold the same when all four agree.
struct Piece {
  U first{}, end{};
  StatePart part = StatePart::Conv;
  std::uint8_t segment = 0;
  I row = kInterleaved;
  U base{};
};

void add_conv_pieces(std::vector<Piece>& out, const StateSideBytes& side, I r) {
  const RankState<I>& s = side.state;
  const U L = U(side.rows), e = U(side.e_conv);
  const auto segment_piece = [&](std::size_t k, const U& first, I row, const U& bytes) {
    out.push_back({first, U(first + bytes), StatePart::Conv, static_cast<std::uint8_t>(k), row,
                   U(s.start(r, k) * (row == kInterleaved ? L * e : e))});
  };
  switch (side.order) {
    case ConvOrder::DimFirst:
      for (std::size_t k = 0; k < s.segment_count; ++k) {
        segment_piece(k, U(s.conv[k].loc * L * e), kInterleaved, U(s.conv[k].width * L * e));
      }
      break;
    case ConvOrder::StateFirst:
      for (I t = 0; t < side.rows; ++t) {
        for (std::size_t k = 0; k < s.segment_count; ++k) {
          segment_piece(k, U((U(t) * s.c_loc + s.conv[k].loc) * e), t, U(s.conv[k].width * e));
        }
      }
      break;
    case ConvOrder::SegmentsStateFirst:
      for (std::size_t k = 0; k < s.segment_count; ++k) {
        for (I t = 0; t < side.rows; ++t) {
          segment_piece(k, U((s.conv[k].loc * L + U(t) * s.conv[k].width) * e), t, U(s.conv[k].width * e));
        }
      }
      break;
  }
}

// Rank r's entry as pieces, ascending.
std::vector<Piece> pieces_of(const StateSideBytes& side, I r, StateEntry entry) {
  std::vector<Piece> out;
  const RankState<I>& s = side.state;
  if (entry != StateEntry::Ssm) add_conv_pieces(out, side, r);
  if (entry != StateEntry::Conv) {
    const U at = entry == StateEntry::Page ? side.conv_bytes : U(0);
    out.push_back({at, U(at + side.ssm_bytes), StatePart::Ssm, static_cast<std::uint8_t>(s.segment_count),
                   kInterleaved, U(U(s.first_head(r)) * s.head_elements * U(side.e_ssm))});
  }
  const U state = side.conv_bytes + side.ssm_bytes;
  if (entry == StateEntry::Page && side.page_bytes > state) {
    out.push_back({state, side.page_bytes, StatePart::Padding, 0, kInterleaved, U(0)});
  }
  std::sort(out.begin(), out.end(), [](const Piece& a, const Piece& b) { return a.first < b.first; });
  return out;
}

U entry_bytes(const StateSideBytes& side, StateEntry entry) {
  switch (entry) {
    case StateEntry::Page: return side.page_bytes;
    case StateEntry::Conv: return side.conv_bytes;
    case StateEntry::Ssm: return side.ssm_bytes;
  }
  return U(0);
}

// The entries a side's state is in.
std::vector<StateEntry> entries_of(const StateSideBytes& side) {
  if (side.container == StateContainer::VllmPage) return {StateEntry::Page};
  return {StateEntry::Conv, StateEntry::Ssm};
}

// The piece holding byte q (q < the entry's bytes).
const Piece& piece_at(const std::vector<Piece>& pieces, const U& q) {
  const auto after = std::upper_bound(pieces.begin(), pieces.end(), q, [](const U& v, const Piece& p) { return v < p.first; });
  return *(after - 1);
}

StateByte<I> byte_at(const StateSideBytes& side, I r, StateEntry entry, const U& q) {
  switch (entry) {
    case StateEntry::Page: return decode_page_byte(side, r, q);
    case StateEntry::Conv: return decode_conv_byte(side, r, q);
    case StateEntry::Ssm: return decode_ssm_byte(side, r, q);
  }
  return {};
}

// Which fault a wrong byte is: the first coordinate that differs.
StateFault classify(const StateByte<I>& want, const StateByte<I>& got) {
  if (want.part != got.part || want.segment != got.segment) return StateFault::WrongSegment;
  if (want.unit != got.unit) return StateFault::WrongChannels;
  if (want.position != got.position) return StateFault::WrongPosition;
  return StateFault::MisalignedInElement;
}

// The faults of one decode rank, by segment: conv segments, then the SSM
// state, the padding, and what lies past the slot.
class Tally {
 public:
  explicit Tally(std::size_t segments) : segments_(segments), faults_(segments + 3) {}

  std::size_t of(const Piece& p) const {
    return p.part == StatePart::Conv ? p.segment : p.part == StatePart::Ssm ? segments_ : segments_ + 1;
  }
  std::size_t past_the_slot() const { return segments_ + 2; }

  void note(std::size_t segment, StateFault f) {
    auto& slot = faults_[segment];
    if (!slot || f < *slot) slot = f;
  }

  std::optional<StateFinding> first(const RankState<I>& s) const {
    for (std::size_t k = 0; k < faults_.size(); ++k) {
      if (!faults_[k]) continue;
      const std::string name = k < segments_         ? s.conv[k].name
                               : k == segments_      ? kSsmSegment
                               : k == segments_ + 1 ? "padding"
                                                     : "past its slot";
      return StateFinding{name, *faults_[k]};
    }
    return std::nullopt;
  }

 private:
  std::size_t segments_;
  std::vector<std::optional<StateFault>> faults_;
};

struct Covered {
  StateEntry entry;
  U first, end;
};

// Judges [q_d, q_d + m) of the decode entry against [q_s, q_s + m) of the
// source, one piece on each side: correct bytes go to `covered`.
void judge_run(const StateSideBytes& prefill, const StateSideBytes& decode, I p, I d, StateEntry entry, const Piece& want,
               const Piece& got, const U& q_d, const U& q_s, const U& m, Tally& tally, std::vector<Covered>& covered) {
  const std::size_t segment = tally.of(want);
  if (want.part == StatePart::Padding || got.part == StatePart::Padding) {
    tally.note(segment, StateFault::Padding);
    return;
  }
  if (want.part == got.part && want.segment == got.segment && (want.row == kInterleaved) == (got.row == kInterleaved)) {
    // Both advance alike: the same content at the first byte is the same throughout.
    if (want.row == got.row && want.base + (q_d - want.first) == got.base + (q_s - got.first)) {
      covered.push_back({entry, q_d, U(q_d + m)});
    } else {
      tally.note(segment, classify(byte_at(decode, d, entry, q_d), byte_at(prefill, p, entry, q_s)));
    }
    return;
  }
  if (want.part != got.part || want.segment != got.segment) {
    tally.note(segment, StateFault::WrongSegment);
    return;
  }
  // One side DS, the other row-major: element by element.
  const U e = U(decode.e_conv);
  for (U k = 0; k < m;) {
    const StateByte<I> w = byte_at(decode, d, entry, U(q_d + k)), g = byte_at(prefill, p, entry, U(q_s + k));
    const U step = std::min(U(e - U(std::max(w.byte, g.byte))), U(m - k));
    if (w == g) {
      covered.push_back({entry, U(q_d + k), U(q_d + k + step)});
    } else {
      tally.note(segment, classify(w, g));
    }
    k += step;
  }
}

// Marks `fault` on the segment of every piece of [a, b).
void note_range(const std::vector<Piece>& pieces, const U& a, const U& b, StateFault fault, Tally& tally) {
  for (const Piece& p : pieces) {
    if (p.first < b && a < p.end && p.part != StatePart::Padding) tally.note(tally.of(p), fault);
  }
}

}  // namespace

std::string_view state_fault_name(StateFault f) {
  switch (f) {
    case StateFault::WriteOutsideRequest: return "write_outside_request";
    case StateFault::WrongSlot: return "wrong_slot";
    case StateFault::Padding: return "padding";
    case StateFault::WrongSegment: return "wrong_segment";
    case StateFault::WrongChannels: return "wrong_channels";
    case StateFault::WrongPosition: return "wrong_position";
    case StateFault::MisalignedInElement: return "misaligned_in_element";
    case StateFault::Unwritten: return "unwritten";
    case StateFault::Redundant: return "redundant";
  }
  return "unknown";
}

std::string_view state_fault_meaning(StateFault f) {
  switch (f) {
    case StateFault::WriteOutsideRequest: return "corrupts another request's state";
    case StateFault::WrongSlot: return "the decode rank resumes another request's state";
    case StateFault::Padding: return "garbage read into the state, or a write nobody reads";
    case StateFault::WrongSegment: return "the kernel reads the wrong projection";
    case StateFault::WrongChannels: return "the right projection, other heads' data";
    case StateFault::WrongPosition: return "a shifted window, a transposed matrix";
    case StateFault::MisalignedInElement: return "values cut across elements";
    case StateFault::Unwritten: return "the decode rank resumes stale state, silently";
    case StateFault::Redundant: return "a byte written twice, which the connector does not document";
  }
  return "";
}

std::optional<StateFinding> judge_state_writes(const StateSideBytes& prefill, const StateSideBytes& decode, I d,
                                               std::span<const StateWrite> writes, bool redundant_allowed) {
  Tally tally(decode.state.segment_count);
  std::vector<Covered> covered;
  std::map<std::tuple<StateEntry, I>, std::vector<Piece>> sources;  // by (entry, prefill rank)
  std::map<StateEntry, std::vector<Piece>> own;
  for (const StateEntry e : entries_of(decode)) own[e] = pieces_of(decode, d, e);
  for (const StateWrite& w : writes) {
    const std::vector<Piece>& want = own.at(w.entry);
    auto found = sources.find({w.entry, w.p});
    if (found == sources.end()) found = sources.emplace(std::tuple{w.entry, w.p}, pieces_of(prefill, w.p, w.entry)).first;
    const std::vector<Piece>& from = found->second;
    const U dst_end = entry_bytes(decode, w.entry), src_end = entry_bytes(prefill, w.entry);
    for (U done = 0; done < w.n;) {
      const U q_d = w.dst + done, q_s = w.src + done;
      if (q_d >= dst_end) {
        tally.note(tally.past_the_slot(), StateFault::WriteOutsideRequest);
        break;
      }
      const Piece& pd = piece_at(want, q_d);
      U m = std::min(U(w.n - done), U(pd.end - q_d));
      if (q_s >= src_end) {
        tally.note(tally.of(pd), StateFault::WrongSlot);
      } else {
        const Piece& ps = piece_at(from, q_s);
        m = std::min(m, U(ps.end - q_s));
        judge_run(prefill, decode, w.p, d, w.entry, pd, ps, q_d, q_s, m, tally, covered);
      }
      done += m;
    }
  }
  // Every state byte covered once: gaps are unwritten, overlaps redundant.
  std::sort(covered.begin(), covered.end(),
            [](const Covered& a, const Covered& b) { return std::tie(a.entry, a.first) < std::tie(b.entry, b.first); });
  for (const auto& [entry, pieces] : own) {
    const U state_end = entry == StateEntry::Page ? U(decode.conv_bytes + decode.ssm_bytes) : entry_bytes(decode, entry);
    U reach = 0;
    for (const Covered& c : covered) {
      if (c.entry != entry) continue;
      if (c.first > reach) note_range(pieces, reach, c.first, StateFault::Unwritten, tally);
      if (c.first < reach && !redundant_allowed) {
        note_range(pieces, c.first, std::min(c.end, reach), StateFault::Redundant, tally);
      }
      reach = std::max(reach, c.end);
    }
    if (reach < state_end) note_range(pieces, reach, state_end, StateFault::Unwritten, tally);
  }
  return tally.first(decode.state);
}

std::vector<StateWrite> plan_writes(const StateSideBytes& prefill, const StateSideBytes& decode,
                                    const StateDims<I>& dims, I P, I D, I d) {
  std::vector<StateWrite> out;
  const std::vector<StateCopy<I>> copies = state_plan<I>(d, P, D, dims).value();
  for (const StateCopy<I>& copy : copies) {
    for_each_copy_run(copy, prefill, decode, [&](const ByteRun<I>& run) {
      const StateEntry entry = decode.container == StateContainer::VllmPage ? StateEntry::Page
                               : run.part == StatePart::Conv               ? StateEntry::Conv
                                                                           : StateEntry::Ssm;
      out.push_back({entry, copy.p, run.src, run.dst, run.length});
      return true;
    });
  }
  return out;
}

}  // namespace tpcheck::preflight
