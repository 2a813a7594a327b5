// SPEC §14B: the bytes SGLang's transfers move. The judge (byte_judge.hpp)
// and the two captures that feed it: Mooncake's batches of (source,
// destination, length), and NIXL's prepared descriptor lists with the
// transfers that select rows of them. Also §14B.8's descriptor index probe.
#include "tpcheck/conform/byte_judge.hpp"

#include <algorithm>
#include <limits>

#include "capture.hpp"
#include "relations.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {
namespace {

using bytes::ByteCoord;
using bytes::MemoryMap;
using bytes::RankMemory;
using bytes::Run;

// A transfer longer than this many pieces writes far past any request's
// pages (a piece is at most one token): the rest of it is not cut further.
constexpr std::uint64_t kMaxPieces = std::uint64_t{1} << 16;

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
  r.first.region = region;
  r.first.slot = static_cast<std::int64_t>(offset / item);
  return r;
}

std::string describe(const RankMemory& rank, const ByteCoord& c) {
  return rank.region_name(c.region) + " page " + decimal(c.slot) + " token " + decimal(c.token) + " head " +
         decimal(c.head) + " byte " + decimal(c.byte);
}

// Where an address is: "p0 K layer 0 page 5 token 0 head 1 byte 0", or its
// value and "in no registered region".
std::string place_text(const MemoryMap& memory, std::uint64_t address) {
  const auto place = memory.locate(address);
  if (!place) return hex(address) + " (in no registered region)";
  return place->rank->name() + " " + describe(*place->rank, run_in_region(*place->rank, place->region, place->offset).first);
}

// A row of a descriptor list: where it starts, its length, and how far past its region's end it runs.
std::string span_text(const MemoryMap& memory, std::uint64_t address, std::uint64_t length) {
  const auto place = memory.locate(address);
  std::string s = place_text(memory, address) + ", " + bytes_text(length);
  if (place && length > place->room) s += ", " + bytes_text(length - place->room) + " past the region's end";
  return s;
}

}  // namespace
}  // namespace tpcheck::conform

namespace tpcheck::conform::bytes {

ByteJudge::ByteJudge(const MemoryMap& memory, FindingSet& findings) : memory_(memory), findings_(findings) {}

bool ByteJudge::inside(const RankMemory& rank, std::uint64_t address, std::uint64_t length) const {
  const auto place = memory_.locate(address);
  return place && place->rank == &rank && length <= place->room;
}

void ByteJudge::transfer(std::int64_t p, std::int64_t d, const Transfer& t) {
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
      const Run rs = run_in_region(*sender, src->region, src->offset);
      const Run rt = run_in_region(*receiver, dst->region, dst->offset);
      step = std::min({step, rs.length, rt.length});
      piece(p, d, *src, *dst, step);
    } else {
      outside(p, d, src_in, dst_in, s, w, step);
    }
    done += step;
    if (++pieces == kMaxPieces && done < t.length) {
      // At most one token per piece: this many tokens lie far past any request's pages.
      if (!findings_.has("write_outside_request", p, d)) {
        findings_.add("write_outside_request", p, d, "d" + decimal(d) + " written only in its request's pages",
                      "a transfer of " + bytes_text(t.length) + " to " + place_text(memory_, t.dst) +
                          ", far past the request's pages");
      }
      return;
    }
  }
}

void ByteJudge::outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src,
                        std::uint64_t dst, std::uint64_t length) {
  const std::string what = bytes_text(length) + " from " + place_text(memory_, src) + " to " + place_text(memory_, dst);
  if (!src_in && !findings_.has("src_outside_region", p, d)) {
    findings_.add("src_outside_region", p, d, "a source inside p" + decimal(p) + "'s registered regions", what);
  }
  if (!dst_in && !findings_.has("dst_outside_region", p, d)) {
    findings_.add("dst_outside_region", p, d, "a destination inside d" + decimal(d) + "'s registered regions", what);
  }
}

void ByteJudge::piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src, const MemoryMap::Place& dst,
                      std::uint64_t length) {
  decoded_ += length;
  const RankMemory& sm = *src.rank;
  const RankMemory& dm = *dst.rank;
  const Run rs = run_in_region(sm, src.region, src.offset);
  const Run rt = run_in_region(dm, dst.region, dst.offset);
  auto what = [&] {
    return bytes_text(length) + " from p" + decimal(p) + " " + describe(sm, rs.first) + " to d" + decimal(d) + " " +
           describe(dm, rt.first);
  };
  const auto k = std::find(dm.request.begin(), dm.request.end(), rt.first.slot);
  if (k == dm.request.end()) {
    if (!findings_.has("write_outside_request", p, d)) {
      findings_.add("write_outside_request", p, d,
                    "d" + decimal(d) + " written only in its request's pages " + pages_text(dm.request), what());
    }
    return;
  }
  // What the destination's first byte should hold: the same region, token,
  // head and byte of the partner page.
  ByteCoord want = rt.first;
  want.slot = sm.request.at(static_cast<std::size_t>(k - dm.request.begin()));
  auto expected = [&] {
    return "d" + decimal(d) + " " + describe(dm, rt.first) + " holds p" + decimal(p) + " " + describe(sm, want);
  };
  if (rs.first.region != rt.first.region) {
    if (!findings_.has("wrong_layer_or_kv", p, d)) findings_.add("wrong_layer_or_kv", p, d, expected(), what());
    return;
  }
  if (rs.first.slot != want.slot) {
    if (!findings_.has("wrong_page_or_token", p, d)) findings_.add("wrong_page_or_token", p, d, expected(), what());
    return;
  }
  const bool same = rs.heads_inner == rt.heads_inner && rs.first.token == rt.first.token &&
                    rs.first.head == rt.first.head && rs.first.byte == rt.first.byte;
  if (same) {
    written(d, dst.region, dst.offset, length);
    return;
  }
  mismatch(p, d, sm, dm, rs, rt, dst.offset, length);
}

// A piece whose pages match but whose (token, head, byte) differ somewhere:
// cut where a head ends on either side, and judge each part, which has one
// token and one head per side.
void ByteJudge::mismatch(std::int64_t p, std::int64_t d, const RankMemory& sm, const RankMemory& dm, const Run& rs,
                         const Run& rt, std::uint64_t dst_offset, std::uint64_t length) {
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
      written(d, ct.region, dst_offset + i, step);
    } else if (!findings_.has(kind, p, d)) {
      ByteCoord want = ct;
      want.slot = cs.slot;
      findings_.add(kind, p, d,
                    "d" + decimal(d) + " " + describe(dm, ct) + " holds p" + decimal(p) + " " + describe(sm, want),
                    bytes_text(step) + " from p" + decimal(p) + " " + describe(sm, cs) + " to d" + decimal(d) + " " +
                        describe(dm, ct));
    }
    i += step;
  }
}

void ByteJudge::written(std::int64_t d, std::int64_t region, std::uint64_t offset, std::uint64_t length) {
  auto& events = written_[{d, region}];
  events[offset] += 1;
  events[offset + length] -= 1;
}

void ByteJudge::finish() {
  for (const RankMemory& dm : memory_.ranks()) {
    if (dm.side != Side::Decode) continue;
    const std::int64_t d = dm.rank;
    const std::uint64_t item = dm.pages->item_length();
    std::uint64_t missing = 0, twice = 0, total = 0;
    std::optional<std::pair<std::int64_t, std::uint64_t>> first_missing, first_twice;
    for (std::int64_t region = 0; region < static_cast<std::int64_t>(dm.region_bases.size()); ++region) {
      const auto found = written_.find({d, region});
      static const std::map<std::uint64_t, std::int64_t> kNone;
      const auto& events = found == written_.end() ? kNone : found->second;
      for (const std::int64_t slot : dm.request) {
        const std::uint64_t lo = static_cast<std::uint64_t>(slot) * item, hi = lo + item;
        total += item;
        // The count of correct writes at lo, then sweep the changes inside [lo, hi).
        std::int64_t count = 0;
        auto it = events.begin();
        for (; it != events.end() && it->first <= lo; ++it) count += it->second;
        std::uint64_t at_ = lo;
        for (;;) {
          const std::uint64_t next = it != events.end() && it->first < hi ? it->first : hi;
          if (next > at_) {
            if (count == 0) {
              missing += next - at_;
              if (!first_missing) first_missing = std::make_pair(region, at_);
            } else if (count > 1) {
              twice += next - at_;
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
      return describe(dm, run_in_region(dm, place.first, place.second).first);
    };
    if (missing) {
      findings_.add("unwritten", std::nullopt, d,
                    "every byte of d" + decimal(d) + "'s request pages " + pages_text(dm.request) + " in " +
                        decimal(static_cast<std::int64_t>(dm.region_bases.size())) + " regions (" + bytes_text(total) +
                        ") written from a sender that holds it",
                    bytes_text(missing) + " never written correctly, the first at " + where(*first_missing));
    }
    if (twice) {
      findings_.add("redundant", std::nullopt, d, "each byte written once",
                    bytes_text(twice) + " written correctly more than once, the first at " + where(*first_twice));
    }
  }
}

}  // namespace tpcheck::conform::bytes

namespace tpcheck::conform {
namespace {

using bytes::ByteJudge;
using capture::Value;

std::string list_text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + decimal(v[i]);
  return s + "]";
}

// What a send's values that are not addresses (or not lengths) come to, per pair.
struct BadValues {
  std::uint64_t seen = 0, non_integer = 0, inexact = 0;
  std::string example;
};

class CaptureJudge {
 public:
  CaptureJudge(const bytes::MemoryMap& memory, FindingSet& findings)
      : memory_(memory), findings_(findings), judge_(memory, findings) {}

  // An address or length handed to the engine: its value if usable.
  std::optional<std::uint64_t> address(std::int64_t p, std::int64_t d, const Value& v) {
    auto& bad = bad_[{p, d}];
    ++bad.seen;
    if (v.form == Value::Form::NotInteger) {
      ++bad.non_integer;
      bad.inexact += v.inexact_float() ? 1 : 0;
      if (bad.example.empty()) bad.example = v.text;
      return std::nullopt;
    }
    if (!v.is_u64()) {
      if (!findings_.has("address_not_u64", p, d)) {
        findings_.add("address_not_u64", p, d, "addresses in [0, 2^64)", "the address " + v.text);
      }
      return std::nullopt;
    }
    return v.u64;
  }

  std::optional<std::uint64_t> length(std::int64_t p, std::int64_t d, const Value& v) {
    if (v.form == Value::Form::NotInteger) return address(p, d, v);
    if (!v.is_u64() || v.u64 == 0) {
      if (!findings_.has("nonpositive_length", p, d)) {
        findings_.add("nonpositive_length", p, d, "a positive length", "a transfer of length " + v.text);
      }
      return std::nullopt;
    }
    return v.u64;
  }

  void transfer(std::int64_t p, std::int64_t d, std::uint64_t src, std::uint64_t dst, std::uint64_t length) {
    judge_.transfer(p, d, {src, dst, length});
  }

  void finish() {
    judge_.finish();
    for (const auto& [pair, bad] : bad_) {
      if (bad.non_integer == 0) continue;
      findings_.add("non_integer_address", pair.first, pair.second, "integers (addresses, lengths)",
                    decimal(static_cast<std::int64_t>(bad.non_integer)) + " of " +
                        decimal(static_cast<std::int64_t>(bad.seen)) + " values are not integers (" +
                        decimal(static_cast<std::int64_t>(bad.inexact)) +
                        " of them floats of 2^53 or more, which hold no exact byte address), such as " + bad.example);
    }
  }

  ByteJudge& judge() { return judge_; }

 private:
  const bytes::MemoryMap& memory_;
  FindingSet& findings_;
  ByteJudge judge_;
  std::map<std::pair<std::int64_t, std::int64_t>, BadValues> bad_;
};

// Who sends to d: the pairing method's answer against window(d, D, P).
void judge_pairings(const capture::TransferLog& log, std::int64_t P, std::int64_t D, FindingSet& findings) {
  for (const auto& pairing : log.pairings) {
    const auto w = window<std::int64_t>(pairing.d, D, P);
    if (!w.ok()) continue;
    const std::vector<std::int64_t> want(w.value().begin(), w.value().end());
    if (!pairing.raised && pairing.senders == want) continue;
    findings.add("pairing_differs_from_window", std::nullopt, pairing.d, "senders " + list_text(want),
                 pairing.raised ? pairing.exception : "senders " + list_text(pairing.senders));
  }
}

void judge_mooncake_send(const capture::Send& send, CaptureJudge& cj, FindingSet& findings) {
  const std::int64_t p = send.p, d = send.d;
  for (const auto& batch : send.batches) {
    const std::size_t n = std::min({batch.src.size(), batch.dst.size(), batch.length.size()});
    if (batch.src.size() != batch.dst.size() || batch.src.size() != batch.length.size()) {
      findings.add("desc_count_mismatch", p, d, "as many sources, destinations and lengths",
                   decimal(static_cast<std::int64_t>(batch.src.size())) + " sources, " +
                       decimal(static_cast<std::int64_t>(batch.dst.size())) + " destinations, " +
                       decimal(static_cast<std::int64_t>(batch.length.size())) + " lengths");
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto src = cj.address(p, d, batch.src[i]);
      const auto dst = cj.address(p, d, batch.dst[i]);
      const auto len = cj.length(p, d, batch.length[i]);
      if (src && dst && len) cj.transfer(p, d, *src, *dst, *len);
    }
  }
  if (!send.exception.empty()) {
    const std::string cls = send.exception.substr(0, send.exception.find(": "));
    findings.add("raises:" + cls, p, d, "no exception", send.exception);
  } else if (send.returned && (!send.result || !send.result->is_u64() || send.result->u64 != 0)) {
    findings.add("refused", p, d, "0 (success)", "returned " + (send.result ? send.result->text : "None"));
  }
}

// NIXL: every list checked when it is prepared, every posted transfer's
// selected rows judged as transfers.
class NixlLists {
 public:
  NixlLists(const bytes::MemoryMap& memory, CaptureJudge& cj, FindingSet& findings)
      : memory_(memory), cj_(cj), findings_(findings) {}

  void send(const capture::Send& send) {
    const std::int64_t p = send.p, d = send.d;
    for (const auto& list : send.lists) prepare(p, d, list);
    for (const auto& x : send.transfers) {
      if (x.posted) transfer(p, d, x);
    }
    if (!send.exception.empty()) {
      const std::string cls = send.exception.substr(0, send.exception.find(": "));
      findings_.add("raises:" + cls, p, d, "no exception", send.exception);
    }
  }

 private:
  struct Row {
    std::optional<std::uint64_t> address, length;
  };
  struct List {
    bool source = false;
    std::vector<Row> rows;
  };

  // The decode rank a destination list is for: its agent name decode_<d>.
  static std::optional<std::int64_t> peer_rank(const std::string& agent) {
    const std::string prefix = "decode_";
    if (agent.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    const auto v = capture::read_value(agent.substr(prefix.size()));
    if (!v.is_u64() || v.u64 > 1u << 20) return std::nullopt;
    return static_cast<std::int64_t>(v.u64);
  }

  void prepare(std::int64_t p, std::int64_t d, const capture::DescriptorList& list) {
    List kept;
    kept.source = list.agent.empty();
    const std::int64_t owner_rank = kept.source ? p : peer_rank(list.agent).value_or(d);
    const bytes::RankMemory* owner =
        memory_.rank(kept.source ? bytes::Side::Prefill : bytes::Side::Decode, owner_rank);
    if (kept.source && list.rows.empty()) {
      findings_.add("empty_src_dlist", p, d, "a source list with rows", "the source list has no rows");
    }
    const char* outside_kind = kept.source ? "src_dlist_outside_region" : "dst_dlist_outside_region";
    for (std::size_t i = 0; i < list.rows.size(); ++i) {
      const auto& values = list.rows[i];
      Row row;
      if (values.size() >= 2) {
        row.address = cj_.address(p, d, values[0]);
        row.length = cj_.length(p, d, values[1]);
      }
      if (values.size() != 3 && !findings_.has(outside_kind, p, d)) {
        findings_.add(outside_kind, p, d, "rows of (address, length, device id)",
                      "row " + decimal(static_cast<std::int64_t>(i)) + " has " +
                          decimal(static_cast<std::int64_t>(values.size())) + " values");
      }
      if (row.address && row.length && (owner == nullptr || !cj_.judge().inside(*owner, *row.address, *row.length)) &&
          !findings_.has(outside_kind, p, d)) {
        findings_.add(outside_kind, p, d,
                      "every row inside " + std::string(kept.source ? "p" : "d") + decimal(owner_rank) +
                          "'s registered regions",
                      "row " + decimal(static_cast<std::int64_t>(i)) + " of " +
                          decimal(static_cast<std::int64_t>(list.rows.size())) + ": " +
                          span_text(memory_, *row.address, *row.length));
      }
      kept.rows.push_back(row);
    }
    lists_[list.handle] = std::move(kept);
  }

  const List* list_of(std::int64_t p, std::int64_t d, const Value& handle, const char* side) {
    const auto it = handle.is_u64() ? lists_.find(handle.u64) : lists_.end();
    if (it == lists_.end()) {
      findings_.add("desc_index_out_of_range", p, d, std::string("a prepared ") + side + " list",
                    std::string("the ") + side + " handle " + handle.text + " names no prepared list");
      return nullptr;
    }
    return &it->second;
  }

  std::optional<std::size_t> index(std::int64_t p, std::int64_t d, const Value& v, const List& list,
                                   const char* side) {
    if (v.is_u64() && v.u64 < list.rows.size()) return static_cast<std::size_t>(v.u64);
    if (!findings_.has("desc_index_out_of_range", p, d)) {
      findings_.add("desc_index_out_of_range", p, d,
                    std::string(side) + " indices in [0, " + decimal(static_cast<std::int64_t>(list.rows.size())) +
                        ")",
                    std::string("the ") + side + " index " + v.text);
    }
    return std::nullopt;
  }

  void transfer(std::int64_t p, std::int64_t d, const capture::PreparedTransfer& x) {
    const List* src = list_of(p, d, x.src_list, "source");
    const List* dst = list_of(p, d, x.dst_list, "destination");
    if (src == nullptr || dst == nullptr) return;
    if (x.src_indices.size() != x.dst_indices.size()) {
      findings_.add("desc_count_mismatch", p, d, "as many source as destination indices",
                    decimal(static_cast<std::int64_t>(x.src_indices.size())) + " source and " +
                        decimal(static_cast<std::int64_t>(x.dst_indices.size())) + " destination indices");
    }
    const std::size_t n = std::min(x.src_indices.size(), x.dst_indices.size());
    for (std::size_t k = 0; k < n; ++k) {
      const auto i = index(p, d, x.src_indices[k], *src, "source");
      const auto j = index(p, d, x.dst_indices[k], *dst, "destination");
      if (!i || !j) continue;
      const Row& a = src->rows[*i];
      const Row& b = dst->rows[*j];
      if (!a.address || !a.length || !b.address || !b.length) continue;
      if (*a.length != *b.length && !findings_.has("length_mismatch", p, d)) {
        findings_.add("length_mismatch", p, d, "paired rows of equal length",
                      "source row " + decimal(static_cast<std::int64_t>(*i)) + " has " + bytes_text(*a.length) +
                          ", destination row " + decimal(static_cast<std::int64_t>(*j)) + " " +
                          bytes_text(*b.length));
      }
      cj_.transfer(p, d, *a.address, *b.address, std::min(*a.length, *b.length));
    }
  }

  const bytes::MemoryMap& memory_;
  CaptureJudge& cj_;
  FindingSet& findings_;
  std::map<std::uint64_t, List> lists_;
};

}  // namespace

Judgement judge_transfers(const Binding& b, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  if (!a || a->size() != 5 || !b.memory) {
    j.not_compared = true;
    return j;
  }
  const std::int64_t P = (*a)[0], D = (*a)[1], H = (*a)[2], page_size = (*a)[3], probe = (*a)[4];
  const bytes::MemoryMap memory = b.memory->build(P, D, H, page_size, probe);
  const capture::TransferLog log = capture::read_transfer_log(actual.text);
  FindingSet findings;
  CaptureJudge cj(memory, findings);
  judge_pairings(log, P, D, findings);
  NixlLists nixl(memory, cj, findings);
  for (const auto& send : log.sends) {
    if (b.relation == Relation::MooncakeTransfers) {
      judge_mooncake_send(send, cj, findings);
    } else {
      nixl.send(send);
    }
  }
  cj.finish();
  if (log.malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "a capture tpcheck can read",
                 decimal(static_cast<std::int64_t>(log.malformed)) + " lines of the capture could not be read");
  }
  j.findings = findings.take();
  j.tallies = {{"configurations", 1},
               {"sends", log.sends.size()},
               {"decode ranks", static_cast<std::uint64_t>(D)},
               {"transfers", cj.judge().transfers()},
               {"decoded bytes", cj.judge().decoded_bytes()}};
  return j;
}

Judgement judge_index_function(const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto a = small_args(args);
  if (!a || a->size() != 4) {
    j.not_compared = true;
    return j;
  }
  // (pairs, slots, page_size, groups): the list has pairs * slots * page_size
  // * groups rows in (pair, slot, token, group) order; the last slot, in
  // every pair, at group g.
  const std::int64_t pairs = (*a)[0], slots = (*a)[1], page_size = (*a)[2], groups = (*a)[3];
  const BigInt rows = BigInt(pairs) * slots * page_size * groups;
  std::size_t malformed = 0;
  FindingSet findings;
  for (const auto& item : capture::read_items(actual.text, malformed)) {
    if (item.coords.size() != 1) continue;
    const std::int64_t g = item.coords[0];
    if (item.raised) {
      findings.add("raises:" + item.exception_class, std::nullopt, std::nullopt, "the indices",
                   item.exception_class + ": " + item.message);
      continue;
    }
    const auto tree = capture::read_int_tree(item.value);
    const auto got = tree ? capture::flat_ints(*tree) : std::nullopt;
    std::vector<BigInt> want;
    for (std::int64_t pair = 0; pair < pairs; ++pair) {
      for (std::int64_t t = 0; t < page_size; ++t) {
        want.push_back(BigInt(pair) * slots * page_size * groups + BigInt(slots - 1) * page_size * groups +
                       BigInt(t) * groups + g);
      }
    }
    if (!got || got->size() != want.size()) {
      findings.add("desc_index_out_of_range", std::nullopt, std::nullopt,
                   decimal(static_cast<std::int64_t>(want.size())) + " indices", item.value.substr(0, 200));
      continue;
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
      const BigInt v((*got)[i]);
      if (v == want[i]) continue;
      const bool in_range = v >= 0 && v < rows;
      findings.add(in_range ? "wrong_page_or_token" : "desc_index_out_of_range", std::nullopt, std::nullopt,
                   "index " + decimal(want[i]) + " of " + decimal(rows) + " rows (pair " +
                       decimal(static_cast<std::int64_t>(i) / page_size) + ", token " +
                       decimal(static_cast<std::int64_t>(i) % page_size) + ", group " + decimal(g) + ")",
                   "index " + decimal(v));
      break;
    }
  }
  if (malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "a capture tpcheck can read",
                 decimal(static_cast<std::int64_t>(malformed)) + " items could not be read");
  }
  j.findings = findings.take();
  return j;
}

}  // namespace tpcheck::conform
