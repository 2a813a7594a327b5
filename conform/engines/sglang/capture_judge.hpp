// Judging what SGLang's transfer methods asked the recording stand-ins for
// (capture.hpp's TransferLog): every value handed to an engine checked as an
// address or a length, Mooncake's batches and NIXL's descriptor lists and
// transfers turned into (p, d, transfer) triples for a byte judge, and who
// sends to whom. The KV relations (relations_transfers.cpp, SPEC §14B) and
// the state relations (relations_state.cpp, SPEC §16.7) share it, each with
// its own judge of what the bytes hold.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "capture.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"

namespace tpcheck::conform::sglang {

// What a send's values that are not addresses (or not lengths) come to, per pair.
struct BadValues {
  std::uint64_t seen = 0, non_integer = 0, inexact = 0;
  std::string example;
};

class CaptureJudge {
 public:
  // Every kind it (and what uses it) adds starts with the judge's prefix ("nondiv:").
  CaptureJudge(FindingSet& findings, bytes::RegionJudge& judge) : findings_(findings), judge_(judge) {}

  // An address or length handed to the engine: its value if usable.
  std::optional<std::uint64_t> address(std::int64_t p, std::int64_t d, const capture::Value& v);
  std::optional<std::uint64_t> length(std::int64_t p, std::int64_t d, const capture::Value& v);
  void transfer(std::int64_t p, std::int64_t d, std::uint64_t src, std::uint64_t dst, std::uint64_t length) {
    judge_.transfer(p, d, {src, dst, length});
  }
  // What the method raised or returned: raises:<Class>, or refused for a
  // Mooncake status other than 0. On a sizing the model refuses, refusing
  // is right: nothing is reported.
  void outcome(const capture::Send& send, bool status_returned);
  // The byte judge's finish, then non_integer_address per pair.
  void finish();

  // Adds (prefix + kind, p, d) unless it is known.
  void add(const std::string& kind, FindingSet::Rank p, FindingSet::Rank d, std::string expected, std::string actual);
  bool has(const std::string& kind, FindingSet::Rank p, FindingSet::Rank d) const;

  bytes::RegionJudge& judge() { return judge_; }

 private:
  // A send's values all belong to one pair: looked up once, not per value.
  BadValues& values_of(std::int64_t p, std::int64_t d);

  FindingSet& findings_;
  bytes::RegionJudge& judge_;
  std::map<std::pair<std::int64_t, std::int64_t>, BadValues> bad_;
  std::pair<std::int64_t, std::int64_t> last_pair_;
  BadValues* last_ = nullptr;
};

// Who sends to d: the pairing method's answer against window(d, D, P), on divisible pairs.
void judge_pairings(const capture::TransferLog& log, std::int64_t P, std::int64_t D, FindingSet& findings);

// Mooncake: every batch's (source, destination, length), then what the method returned.
void judge_mooncake_send(const capture::Send& send, CaptureJudge& cj);

// Every send of a log: Mooncake's (judge_mooncake_send) or NIXL's
// (NixlLists), and a note where it took a watched whole-slot path.
void judge_sends(const capture::TransferLog& log, CaptureJudge& cj, bool mooncake);

// A judged log's end: `crashed` where lines of it could not be read, then the
// findings and the tallies (sends, decode ranks, transfers, decoded bytes) into `j`.
void close_log(const capture::TransferLog& log, std::int64_t D, CaptureJudge& cj, FindingSet& findings, Judgement& j);

// NIXL: every prepared list checked when it is prepared (a list of
// get_xfer_descs is only a list of rows: its transfer moves them all), every
// posted transfer's rows judged as transfers.
class NixlLists {
 public:
  explicit NixlLists(CaptureJudge& cj) : cj_(cj) {}
  void send(const capture::Send& send);

 private:
  struct Row {
    std::optional<std::uint64_t> address, length;
  };
  struct List {
    bool source = false;
    std::vector<Row> rows;
  };

  void prepare(std::int64_t p, std::int64_t d, const capture::DescriptorList& list);
  const List* list_of(std::int64_t p, std::int64_t d, const capture::Value& handle, const char* side);
  std::optional<std::size_t> index(std::int64_t p, std::int64_t d, const capture::Value& v, const List& list,
                                   const char* side);
  void transfer(std::int64_t p, std::int64_t d, const capture::PreparedTransfer& x);
  void pair(std::int64_t p, std::int64_t d, const List& src, std::size_t i, const List& dst, std::size_t j);

  CaptureJudge& cj_;
  std::map<std::uint64_t, List> lists_;
};

}  // namespace tpcheck::conform::sglang
