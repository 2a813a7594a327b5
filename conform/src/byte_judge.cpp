// The byte judges (byte_judge.hpp): the region cutting every memory shares,
// and SPEC §14B.4 and §14B.5 on a KV cache of pages.
#include "tpcheck/conform/byte_judge.hpp"

#include <algorithm>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform::bytes {
namespace {

// A transfer longer than this many pieces writes far past any request's
// pages (a piece is at most one token): the rest of it is not cut further.
constexpr std::uint64_t kMaxPieces = std::uint64_t{1} << 16;

}  // namespace

std::string hex(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

std::string pages_text(const std::vector<std::int64_t>& pages) {
  std::string s = "[";
  for (std::size_t i = 0; i < pages.size(); ++i) s += (i ? ", " : "") + decimal(pages[i]);
  return s + "]";
}

std::string bytes_text(std::uint64_t n) {
  return (n <= std::uint64_t{INT64_MAX} ? decimal(static_cast<std::int64_t>(n)) : decimal(BigInt(n))) +
         (n == 1 ? " byte" : " bytes");
}

Run run_in_region(const RankMemory& rank, std::int64_t region, std::uint64_t offset) {
  const std::uint64_t item = rank.pages->item_length();
  Run r = rank.pages->run_at(offset % item);
  r.first.region = rank.key(region);
  r.first.slot = rank.first_slot(region) + static_cast<std::int64_t>(offset / item);
  return r;
}

std::string describe(const RankMemory& rank, const ByteCoord& c) {
  return rank.region_name(c.region) + " " + rank.slot_word + " " + decimal(c.slot) + " token " + decimal(c.token) + " head " +
         decimal(c.head) + " byte " + decimal(c.byte);
}

// Where an address of a KV memory is: "p0 K layer 0 page 5 token 0 head 1
// byte 0", or its value and "in no registered region".
std::string place_text(const MemoryMap& memory, std::uint64_t address) {
  const auto place = memory.locate(address);
  if (!place) return hex(address) + " (in no registered region)";
  return place->rank->name() + " " + describe(*place->rank, run_in_region(*place->rank, place->region, place->offset).first);
}

// --- RegionJudge ----------------------------------------------------------------------

RegionJudge::RegionJudge(const MemoryMap& memory, FindingSet& findings, std::string prefix)
    : memory_(memory), findings_(findings), prefix_(std::move(prefix)) {}

bool RegionJudge::inside(const RankMemory& rank, std::uint64_t address, std::uint64_t length) const {
  const auto place = memory_.locate(address);
  return place && place->rank == &rank && length <= place->room;
}

std::string RegionJudge::place_text(std::uint64_t address) const {
  const auto place = memory_.locate(address);
  if (!place) return hex(address) + " (in no registered region)";
  return place->rank->name() + " " + describe_byte(*place->rank, place->region, place->offset);
}

// A row of a descriptor list: where it starts, its length, and how far past its region's end it runs.
std::string RegionJudge::span_text(std::uint64_t address, std::uint64_t length) const {
  const auto place = memory_.locate(address);
  std::string s = place_text(address) + ", " + bytes_text(length);
  if (place && length > place->room) s += ", " + bytes_text(length - place->room) + " past the region's end";
  return s;
}

void RegionJudge::transfer(std::int64_t p, std::int64_t d, const Transfer& t) {
  ++transfers_;
  const RankMemory* sender = memory_.rank(Side::Prefill, p);
  const RankMemory* receiver = memory_.rank(Side::Decode, d);
  std::uint64_t done = 0;
  std::uint64_t pieces = 0;
  while (done < t.length) {
    const std::uint64_t s = t.src + done, w = t.dst + done;
    std::uint64_t step = t.length - done;
    // Past 2^64 (where unsigned addresses wrap) nothing is registered.
    const bool src_past = s < t.src, dst_past = w < t.dst;
    const auto src = src_past ? std::nullopt : memory_.locate(s);
    const auto dst = dst_past ? std::nullopt : memory_.locate(w);
    const bool src_in = src && src->rank == sender;
    const bool dst_in = dst && dst->rank == receiver;
    if (!src_past) step = std::min(step, src ? src->room : memory_.gap(s));
    if (!dst_past) step = std::min(step, dst ? dst->room : memory_.gap(w));
    if (src_in && dst_in) {
      step = piece(p, d, *src, *dst, step);
    } else {
      outside(p, d, src_in, dst_in, s, w, step);
    }
    done += step;
    if (++pieces == kMaxPieces && done < t.length) {
      // At most one token or run per piece: this many lie far past any request's bytes.
      const std::string slots = (receiver ? receiver->slot_word : std::string("page")) + "s";
      add("write_outside_request", p, d, [&] { return "d" + decimal(d) + " written only in its request's " + slots; },
          [&] { return "a transfer of " + bytes_text(t.length) + " to " + place_text(t.dst) + ", far past the request's " + slots; });
      return;
    }
  }
}

void RegionJudge::outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src,
                          std::uint64_t dst, std::uint64_t length) {
  const auto what = [&] { return bytes_text(length) + " from " + place_text(src) + " to " + place_text(dst); };
  if (!src_in) add("src_outside_region", p, d, [&] { return "a source inside p" + decimal(p) + "'s registered regions"; }, what);
  if (!dst_in) {
    add("dst_outside_region", p, d, [&] { return "a destination inside d" + decimal(d) + "'s registered regions"; }, what);
  }
}

void RegionJudge::written(std::int64_t d, std::int64_t region, std::uint64_t offset, std::uint64_t length) {
  auto& events = written_[{d, region}];
  events[offset] += 1;
  events[offset + length] -= 1;
}

void RegionJudge::finish() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> stretches;
  for (const RankMemory& dm : memory_.ranks()) {
    if (dm.side != Side::Decode) continue;
    const std::int64_t d = dm.rank;
    std::uint64_t missing = 0, twice = 0, total = 0;
    std::optional<std::pair<std::int64_t, std::uint64_t>> first_missing, first_twice;
    for (std::int64_t region = 0; region < static_cast<std::int64_t>(dm.region_bases.size()); ++region) {
      const auto found = written_.find({d, region});
      static const std::map<std::uint64_t, std::int64_t> kNone;
      const auto& events = found == written_.end() ? kNone : found->second;
      stretches.clear();
      required(dm, region, stretches);
      for (const auto& [lo, hi] : stretches) {
        total += hi - lo;
        // The count of correct writes at lo, then sweep the changes inside [lo, hi).
        std::int64_t count = 0;
        auto it = events.begin();
        for (; it != events.end() && it->first <= lo; ++it) count += it->second;
        std::uint64_t at_ = lo;
        for (;;) {
          const std::uint64_t next = it != events.end() && it->first < hi ? it->first : hi;
          if (next > at_) {
            if (count == 0) {
              missing += this->count(region, next - at_);
              if (!first_missing) first_missing = std::make_pair(region, at_);
            } else if (count > 1) {
              twice += this->count(region, next - at_);
              if (!first_twice) first_twice = std::make_pair(region, at_);
            }
          }
          if (next == hi) break;
          count += it->second;
          at_ = next;
          ++it;
        }
      }
    }
    auto where = [&](const std::pair<std::int64_t, std::uint64_t>& place) {
      return describe_byte(dm, place.first, place.second);
    };
    if (missing) {
      add("unwritten", std::nullopt, d, [&] { return required_text(dm, total); },
          [&] { return count_text(missing) + " never written correctly, the first at " + where(*first_missing); });
    }
    if (twice) {
      add("redundant", std::nullopt, d, [] { return std::string("each byte written once"); },
          [&] { return count_text(twice) + " written correctly more than once, the first at " + where(*first_twice); });
    }
  }
}

// --- ByteJudge: KV pages --------------------------------------------------------------

std::string ByteJudge::describe_byte(const RankMemory& rank, std::int64_t region, std::uint64_t offset) const {
  return describe(rank, run_in_region(rank, region, offset).first);
}

void ByteJudge::required(const RankMemory& dm, std::int64_t region,
                         std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) const {
  const std::uint64_t item = dm.pages->item_length();
  for (const std::int64_t slot : dm.request) {
    // A one-slot region (region_slots) holds only its own slot of the request.
    if (!dm.region_slots.empty() && dm.first_slot(region) != slot) continue;
    const std::uint64_t lo = static_cast<std::uint64_t>(slot - dm.first_slot(region)) * item;
    out.emplace_back(lo, lo + item);
  }
}

std::string ByteJudge::required_text(const RankMemory& dm, std::uint64_t bytes) const {
  return "every byte of d" + decimal(dm.rank) + "'s request " + dm.slot_word + "s " + pages_text(dm.request) + " in " +
         decimal(static_cast<std::int64_t>(dm.region_bases.size())) + " regions (" + bytes_text(bytes) +
         ") written from a sender that holds it";
}

std::uint64_t ByteJudge::piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src, const MemoryMap::Place& dst,
                               std::uint64_t length) {
  const RankMemory& sm = *src.rank;
  const RankMemory& dm = *dst.rank;
  const Run rs = run_in_region(sm, src.region, src.offset);
  const Run rt = run_in_region(dm, dst.region, dst.offset);
  length = std::min({length, rs.length, rt.length});
  decoded_ += length;
  auto what = [&] {
    return bytes_text(length) + " from p" + decimal(p) + " " + describe(sm, rs.first) + " to d" + decimal(d) + " " +
           describe(dm, rt.first);
  };
  const auto k = std::find(dm.request.begin(), dm.request.end(), rt.first.slot);
  if (k == dm.request.end()) {
    add("write_outside_request", p, d,
        [&] { return "d" + decimal(d) + " written only in its request's pages " + pages_text(dm.request); }, what);
    return length;
  }
  // What the destination's first byte should hold: the same region, token,
  // head and byte of the partner page.
  ByteCoord want = rt.first;
  want.slot = sm.request.at(static_cast<std::size_t>(k - dm.request.begin()));
  auto expected = [&] {
    return "d" + decimal(d) + " " + describe(dm, rt.first) + " holds p" + decimal(p) + " " + describe(sm, want);
  };
  if (rs.first.region != rt.first.region) {
    add("wrong_layer_or_kv", p, d, expected, what);
    return length;
  }
  if (rs.first.slot != want.slot) {
    add("wrong_page_or_token", p, d, expected, what);
    return length;
  }
  const bool same = rs.heads_inner == rt.heads_inner && rs.first.token == rt.first.token &&
                    rs.first.head == rt.first.head && rs.first.byte == rt.first.byte;
  if (same) {
    written(d, dst.region, dst.offset, length);
    return length;
  }
  mismatch(p, d, sm, dm, rs, rt, dst.region, dst.offset, length);
  return length;
}

// A piece whose pages match but whose (token, head, byte) differ somewhere:
// cut where a head ends on either side, and judge each part, which has one
// token and one head per side.
void ByteJudge::mismatch(std::int64_t p, std::int64_t d, const RankMemory& sm, const RankMemory& dm, const Run& rs,
                         const Run& rt, std::int64_t dst_region, std::uint64_t dst_offset, std::uint64_t length) {
  const std::int64_t Bs = sm.pages->bytes_per_head(), Bd = dm.pages->bytes_per_head();
  std::uint64_t i = 0;
  while (i < length) {
    const ByteCoord cs = at(rs, i, Bs), ct = at(rt, i, Bd);
    const std::uint64_t step = std::min({static_cast<std::uint64_t>(Bs - cs.byte),
                                         static_cast<std::uint64_t>(Bd - ct.byte), length - i});
    const char* kind = nullptr;
    if (cs.token != ct.token) {
      kind = "wrong_page_or_token";
    } else if (cs.head != ct.head) {
      kind = "wrong_heads";
    } else if (cs.byte != ct.byte) {
      kind = "misaligned_in_head";
    }
    if (kind == nullptr) {
      written(d, dst_region, dst_offset + i, step);
    } else {
      add(kind, p, d,
          [&] {
            ByteCoord want = ct;
            want.slot = cs.slot;
            return "d" + decimal(d) + " " + describe(dm, ct) + " holds p" + decimal(p) + " " + describe(sm, want);
          },
          [&] {
            return bytes_text(step) + " from p" + decimal(p) + " " + describe(sm, cs) + " to d" + decimal(d) + " " +
                   describe(dm, ct);
          });
    }
    i += step;
  }
}

}  // namespace tpcheck::conform::bytes
