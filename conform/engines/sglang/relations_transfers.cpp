// SPEC §14B: the bytes SGLang's transfers move, from the child's captures
// (capture.hpp) to the byte judge (byte_judge.hpp): Mooncake's batches of
// (source, destination, length), NIXL's prepared descriptor lists and the
// transfers that select rows of them, who sends to whom, and §14B.8's probe
// of the descriptor index function alone.
#include <algorithm>
#include <map>
#include <set>

#include "capture.hpp"
#include "sglang.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/written.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {
namespace {

using bytes::ByteJudge;
using bytes::bytes_text;
using bytes::span_text;
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
    BadValues& bad = values_of(p, d);
    ++bad.seen;
    if (v.form == Value::Form::NotInteger) {
      ++bad.non_integer;
      bad.inexact += v.inexact_float() ? 1 : 0;
      if (bad.example.empty()) bad.example = v.text;
      return std::nullopt;
    }
    if (!v.is_u64()) {
      if (!findings_.has("address_not_u64", p, d)) {
        findings_.add("address_not_u64", p, d, "addresses in [0, 2^64)", "the address " + v.shown());
      }
      return std::nullopt;
    }
    return v.u64;
  }

  std::optional<std::uint64_t> length(std::int64_t p, std::int64_t d, const Value& v) {
    if (v.form == Value::Form::NotInteger) return address(p, d, v);
    if (!v.is_u64() || v.u64 == 0) {
      if (!findings_.has("nonpositive_length", p, d)) {
        findings_.add("nonpositive_length", p, d, "a positive length", "a transfer of length " + v.shown());
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
  // A send's values all belong to one pair: looked up once, not per value.
  BadValues& values_of(std::int64_t p, std::int64_t d) {
    if (last_ == nullptr || last_pair_ != std::make_pair(p, d)) {
      last_pair_ = {p, d};
      last_ = &bad_[last_pair_];
    }
    return *last_;
  }

  const bytes::MemoryMap& memory_;
  FindingSet& findings_;
  ByteJudge judge_;
  std::map<std::pair<std::int64_t, std::int64_t>, BadValues> bad_;
  std::pair<std::int64_t, std::int64_t> last_pair_;
  BadValues* last_ = nullptr;
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
    findings.add("refused", p, d, "0 (success)", "returned " + (send.result ? send.result->shown() : "None"));
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
                    std::string("the ") + side + " handle " + handle.shown() + " names no prepared list");
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
                    std::string("the ") + side + " index " + v.shown());
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

// Mooncake's batches, or NIXL's lists and the transfers that select rows of them.
Judgement judge_transfers(const Binding& b, const CaseArgs& args, const Actual& actual, bool mooncake) {
  const auto a = small_args(args);
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  if (!a || a->size() != 5 || !b.memory) {
    j.not_compared = true;
    return j;
  }
  const std::int64_t P = (*a)[0], D = (*a)[1], H = (*a)[2], page_size = (*a)[3], probe = (*a)[4];
  if (!head_compatible<std::int64_t>(P, H) || !head_compatible<std::int64_t>(D, H) || page_size < 1) {
    j.not_compared = true;  // no memory to lay out (the grid has no such case)
    return j;
  }
  const bytes::MemoryMap memory = b.memory->build(P, D, H, page_size, probe);
  const capture::TransferLog log = capture::read_transfer_log(actual.text);
  FindingSet findings;
  CaptureJudge cj(memory, findings);
  judge_pairings(log, P, D, findings);
  NixlLists nixl(memory, cj, findings);
  for (const auto& send : log.sends) {
    if (mooncake) {
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

// (pairs, slots, page_size, groups): the list has pairs * slots * page_size
// * groups rows in (pair, slot, token, group) order; the indices of the last
// slot, in every pair, at group g.
std::vector<std::int64_t> index_wanted(const std::vector<std::int64_t>& a, std::int64_t g) {
  const std::int64_t pairs = a[0], slots = a[1], page_size = a[2], groups = a[3];
  const std::int64_t per_pair = slots * page_size * groups;
  std::vector<std::int64_t> want;
  for (std::int64_t pair = 0; pair < pairs; ++pair) {
    for (std::int64_t t = 0; t < page_size; ++t) {
      want.push_back(pair * per_pair + (slots - 1) * page_size * groups + t * groups + g);
    }
  }
  return want;
}

// Every row index fits int64 (the profile's cases keep them far below 2^63).
bool index_rows_fit(const std::optional<std::vector<std::int64_t>>& a) {
  std::int64_t rows = 1;
  bool fits = a && a->size() == 4;
  for (std::size_t i = 0; fits && i < 4; ++i) fits = (*a)[i] > 0 && !__builtin_mul_overflow(rows, (*a)[i], &rows);
  return fits;
}

Judgement judge_index_function(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto a = small_args(args);
  if (!index_rows_fit(a)) {  // one whose row indices would not fit int64 is not compared
    j.not_compared = true;
    return j;
  }
  const std::int64_t page_size = (*a)[2], groups = (*a)[3];
  const std::int64_t rows = (*a)[0] * (*a)[1] * page_size * groups;
  std::size_t malformed = 0;
  FindingSet findings;
  for (const auto& item : capture::read_items(actual.text, malformed)) {
    // An item about a head group the list does not have is not the driver's answer.
    if (item.coords.size() != 1 || item.coords[0] < 0 || item.coords[0] >= groups) {
      ++malformed;
      continue;
    }
    const std::int64_t g = item.coords[0];
    if (item.raised) {
      findings.add("raises:" + item.exception_class, std::nullopt, std::nullopt, "the indices",
                   item.exception_class + ": " + item.message);
      continue;
    }
    const auto tree = capture::read_int_tree(item.value);
    const auto got = tree ? capture::flat_ints(*tree) : std::nullopt;
    const std::vector<std::int64_t> want = index_wanted(*a, g);
    if (!got || got->size() != want.size()) {
      findings.add("desc_index_out_of_range", std::nullopt, std::nullopt,
                   decimal(static_cast<std::int64_t>(want.size())) + " indices", item.value.substr(0, 200));
      continue;
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
      const std::int64_t v = (*got)[i];
      if (v == want[i]) continue;
      findings.add(v >= 0 && v < rows ? "wrong_page_or_token" : "desc_index_out_of_range", std::nullopt, std::nullopt,
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

std::vector<WrittenItem> index_function_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto a = small_args(args);
  if (!index_rows_fit(a)) return {};
  std::vector<WrittenItem> out;
  for (const std::int64_t g : std::set<std::int64_t>{0, (*a)[3] - 1}) {
    std::vector<std::string> indices;
    for (const std::int64_t v : index_wanted(*a, g)) indices.push_back(decimal(v));
    out.push_back({{g}, expected_value(python_list(indices))});
  }
  return out;
}

// Why the transfer methods get no written test.
constexpr const char* kBytesNotWritten =
    "judged byte by byte: a test would carry the synthetic memory of every rank, recording stand-ins of the transfer "
    "engine or NIXL agent and of the executor, and a decoder mapping every address back to a layer, page, token, head "
    "and byte; conform checks it (give the files to tpcheck conform in CI)";

std::string every_byte(const Binding&) {
  return "every byte the transfers move, from the same layer, K or V, page position, token, head and byte of a sender "
         "that holds it, and every byte of each decode rank's request written (SPEC §14B)";
}

}  // namespace

const Relation kMooncakeTransfers{
    .judge = [](const Binding& b, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_transfers(b, args, actual, true); },
    .compared_with = every_byte,
    .findings = true,
    .not_written = kBytesNotWritten,
};

const Relation kNixlTransfers{
    .judge = [](const Binding& b, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_transfers(b, args, actual, false); },
    .compared_with = every_byte,
    .findings = true,
    .not_written = kBytesNotWritten,
};

const Relation kIndexFunction{
    .judge = judge_index_function,
    .compared_with = [](const Binding&) -> std::string { return "every index exact, on lists of more than 2^31 rows (SPEC §14B.8)"; },
    .findings = true,
    .test_items = index_function_items,
    .test_coords = {"g"},
};

}  // namespace tpcheck::conform
