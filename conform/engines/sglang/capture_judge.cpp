// SGLang's captures to byte-judge transfers (capture_judge.hpp).
#include "capture_judge.hpp"

#include <algorithm>

#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform::sglang {
namespace {

using bytes::bytes_text;
using capture::Value;

std::string list_text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + decimal(v[i]);
  return s + "]";
}

// The decode rank a destination list is for: its agent name decode_<d>.
std::optional<std::int64_t> peer_rank(const std::string& agent) {
  const std::string prefix = "decode_";
  if (agent.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const auto v = capture::read_value(agent.substr(prefix.size()));
  if (!v.is_u64() || v.u64 > 1u << 20) return std::nullopt;
  return static_cast<std::int64_t>(v.u64);
}

}  // namespace

void CaptureJudge::add(const std::string& kind, FindingSet::Rank p, FindingSet::Rank d, std::string expected,
                       std::string actual) {
  const std::string id = judge_.prefix() + kind;
  if (!findings_.has(id, p, d)) findings_.add(id, p, d, std::move(expected), std::move(actual));
}

bool CaptureJudge::has(const std::string& kind, FindingSet::Rank p, FindingSet::Rank d) const {
  return findings_.has(judge_.prefix() + kind, p, d);
}

BadValues& CaptureJudge::values_of(std::int64_t p, std::int64_t d) {
  if (last_ == nullptr || last_pair_ != std::make_pair(p, d)) {
    last_pair_ = {p, d};
    last_ = &bad_[last_pair_];
  }
  return *last_;
}

std::optional<std::uint64_t> CaptureJudge::address(std::int64_t p, std::int64_t d, const Value& v) {
  BadValues& bad = values_of(p, d);
  ++bad.seen;
  if (v.form == Value::Form::NotInteger) {
    ++bad.non_integer;
    bad.inexact += v.inexact_float() ? 1 : 0;
    if (bad.example.empty()) bad.example = v.text;
    return std::nullopt;
  }
  if (!v.is_u64()) {
    if (!has("address_not_u64", p, d)) add("address_not_u64", p, d, "addresses in [0, 2^64)", "the address " + v.shown());
    return std::nullopt;
  }
  return v.u64;
}

std::optional<std::uint64_t> CaptureJudge::length(std::int64_t p, std::int64_t d, const Value& v) {
  if (v.form == Value::Form::NotInteger) return address(p, d, v);
  if (!v.is_u64() || v.u64 == 0) {
    if (!has("nonpositive_length", p, d)) {
      add("nonpositive_length", p, d, "a positive length", "a transfer of length " + v.shown());
    }
    return std::nullopt;
  }
  return v.u64;
}

void CaptureJudge::outcome(const capture::Send& send, bool status_returned) {
  if (!judge_.prefix().empty()) return;
  if (!send.exception.empty()) {
    const std::string cls = send.exception.substr(0, send.exception.find(": "));
    add("raises:" + cls, send.p, send.d, "no exception", send.exception);
  } else if (status_returned && send.returned && (!send.result || !send.result->is_u64() || send.result->u64 != 0)) {
    add("refused", send.p, send.d, "0 (success)", "returned " + (send.result ? send.result->shown() : "None"));
  }
}

void CaptureJudge::finish() {
  judge_.finish();
  for (const auto& [pair, bad] : bad_) {
    if (bad.non_integer == 0) continue;
    add("non_integer_address", pair.first, pair.second, "integers (addresses, lengths)",
        decimal(static_cast<std::int64_t>(bad.non_integer)) + " of " + decimal(static_cast<std::int64_t>(bad.seen)) +
            " values are not integers (" + decimal(static_cast<std::int64_t>(bad.inexact)) +
            " of them floats of 2^53 or more, which hold no exact byte address), such as " + bad.example);
  }
}

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

void judge_mooncake_send(const capture::Send& send, CaptureJudge& cj) {
  const std::int64_t p = send.p, d = send.d;
  for (const auto& batch : send.batches) {
    const std::size_t n = std::min({batch.src.size(), batch.dst.size(), batch.length.size()});
    if (batch.src.size() != batch.dst.size() || batch.src.size() != batch.length.size()) {
      cj.add("desc_count_mismatch", p, d, "as many sources, destinations and lengths",
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
  cj.outcome(send, true);
}

void judge_sends(const capture::TransferLog& log, CaptureJudge& cj, bool mooncake) {
  NixlLists nixl(cj);
  for (const auto& send : log.sends) {
    if (mooncake) {
      judge_mooncake_send(send, cj);
    } else {
      nixl.send(send);
    }
    if (!send.watched.empty()) {
      cj.add("whole_slot_fallback", send.p, send.d, "the slice path", send.watched.front() + " (the whole-slot path) called");
    }
  }
}

void close_log(const capture::TransferLog& log, std::int64_t D, CaptureJudge& cj, FindingSet& findings, Judgement& j) {
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
}

void NixlLists::send(const capture::Send& send) {
  const std::int64_t p = send.p, d = send.d;
  for (const auto& list : send.lists) prepare(p, d, list);
  for (const auto& x : send.transfers) {
    if (x.posted) transfer(p, d, x);
  }
  cj_.outcome(send, false);
}

void NixlLists::prepare(std::int64_t p, std::int64_t d, const capture::DescriptorList& list) {
  List kept;
  kept.source = list.agent.empty();
  const std::int64_t owner_rank = kept.source ? p : peer_rank(list.agent).value_or(d);
  const bytes::RankMemory* owner =
      cj_.judge().memory().rank(kept.source ? bytes::Side::Prefill : bytes::Side::Decode, owner_rank);
  // Rows of get_xfer_descs are not registered with the agent: the transfer
  // that moves them judges their bytes.
  const bool prepared = !list.descs_only;
  if (prepared && kept.source && list.rows.empty()) {
    cj_.add("empty_src_dlist", p, d, "a source list with rows", "the source list has no rows");
  }
  const char* outside_kind = kept.source ? "src_dlist_outside_region" : "dst_dlist_outside_region";
  for (std::size_t i = 0; i < list.rows.size(); ++i) {
    const auto& values = list.rows[i];
    Row row;
    if (values.size() >= 2) {
      row.address = cj_.address(p, d, values[0]);
      row.length = cj_.length(p, d, values[1]);
    }
    if (values.size() != 3 && !cj_.has(outside_kind, p, d)) {
      cj_.add(outside_kind, p, d, "rows of (address, length, device id)",
              "row " + decimal(static_cast<std::int64_t>(i)) + " has " + decimal(static_cast<std::int64_t>(values.size())) +
                  " values");
    }
    if (prepared && row.address && row.length &&
        (owner == nullptr || !cj_.judge().inside(*owner, *row.address, *row.length)) && !cj_.has(outside_kind, p, d)) {
      cj_.add(outside_kind, p, d,
              "every row inside " + std::string(kept.source ? "p" : "d") + decimal(owner_rank) + "'s registered regions",
              "row " + decimal(static_cast<std::int64_t>(i)) + " of " + decimal(static_cast<std::int64_t>(list.rows.size())) +
                  ": " + cj_.judge().span_text(*row.address, *row.length));
    }
    kept.rows.push_back(row);
  }
  lists_[list.handle] = std::move(kept);
}

const NixlLists::List* NixlLists::list_of(std::int64_t p, std::int64_t d, const Value& handle, const char* side) {
  const auto it = handle.is_u64() ? lists_.find(handle.u64) : lists_.end();
  if (it == lists_.end()) {
    cj_.add("desc_index_out_of_range", p, d, std::string("a prepared ") + side + " list",
            std::string("the ") + side + " handle " + handle.shown() + " names no prepared list");
    return nullptr;
  }
  return &it->second;
}

std::optional<std::size_t> NixlLists::index(std::int64_t p, std::int64_t d, const Value& v, const List& list,
                                            const char* side) {
  if (v.is_u64() && v.u64 < list.rows.size()) return static_cast<std::size_t>(v.u64);
  if (!cj_.has("desc_index_out_of_range", p, d)) {
    cj_.add("desc_index_out_of_range", p, d,
            std::string(side) + " indices in [0, " + decimal(static_cast<std::int64_t>(list.rows.size())) + ")",
            std::string("the ") + side + " index " + v.shown());
  }
  return std::nullopt;
}

void NixlLists::pair(std::int64_t p, std::int64_t d, const List& src, std::size_t i, const List& dst, std::size_t j) {
  const Row& a = src.rows[i];
  const Row& b = dst.rows[j];
  if (!a.address || !a.length || !b.address || !b.length) return;
  if (*a.length != *b.length && !cj_.has("length_mismatch", p, d)) {
    cj_.add("length_mismatch", p, d, "paired rows of equal length",
            "source row " + decimal(static_cast<std::int64_t>(i)) + " has " + bytes_text(*a.length) +
                ", destination row " + decimal(static_cast<std::int64_t>(j)) + " " + bytes_text(*b.length));
  }
  cj_.transfer(p, d, *a.address, *b.address, std::min(*a.length, *b.length));
}

void NixlLists::transfer(std::int64_t p, std::int64_t d, const capture::PreparedTransfer& x) {
  const List* src = list_of(p, d, x.src_list, "source");
  const List* dst = list_of(p, d, x.dst_list, "destination");
  if (src == nullptr || dst == nullptr) return;
  if (x.whole_lists) {
    // initialize_xfer: source row k pairs with destination row k.
    if (src->rows.size() != dst->rows.size()) {
      cj_.add("desc_count_mismatch", p, d, "as many source as destination rows",
              decimal(static_cast<std::int64_t>(src->rows.size())) + " source and " +
                  decimal(static_cast<std::int64_t>(dst->rows.size())) + " destination rows");
    }
    for (std::size_t k = 0; k < std::min(src->rows.size(), dst->rows.size()); ++k) pair(p, d, *src, k, *dst, k);
    return;
  }
  if (x.src_indices.size() != x.dst_indices.size()) {
    cj_.add("desc_count_mismatch", p, d, "as many source as destination indices",
            decimal(static_cast<std::int64_t>(x.src_indices.size())) + " source and " +
                decimal(static_cast<std::int64_t>(x.dst_indices.size())) + " destination indices");
  }
  const std::size_t n = std::min(x.src_indices.size(), x.dst_indices.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = index(p, d, x.src_indices[k], *src, "source");
    const auto j = index(p, d, x.dst_indices[k], *dst, "destination");
    if (i && j) pair(p, d, *src, *i, *dst, *j);
  }
}

}  // namespace tpcheck::conform::sglang
