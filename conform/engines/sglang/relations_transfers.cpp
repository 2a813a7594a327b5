// SPEC §14B: the bytes SGLang's transfers move, from the child's captures
// (capture.hpp, capture_judge.hpp) to the byte judge of KV pages
// (byte_judge.hpp): Mooncake's batches of (source, destination, length),
// NIXL's prepared descriptor lists and the transfers that select rows of
// them, who sends to whom, and §14B.8's probe of the descriptor index
// function alone.
#include <algorithm>
#include <map>

#include "capture.hpp"
#include "capture_judge.hpp"
#include "sglang.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {
namespace {

using bytes::ByteJudge;
using sglang::CaptureJudge;

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
  ByteJudge judge(memory, findings);
  CaptureJudge cj(findings, judge);
  sglang::judge_pairings(log, P, D, findings);
  sglang::judge_sends(log, cj, mooncake);
  cj.finish();
  sglang::close_log(log, D, cj, findings, j);
  return j;
}

Judgement judge_index_function(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto a = small_args(args);
  // (pairs, slots, page_size, groups): the list has pairs * slots * page_size
  // * groups rows in (pair, slot, token, group) order; the last slot, in
  // every pair, at group g. The profile's cases keep every row index far
  // below 2^63; one that would not is not compared.
  std::int64_t rows = 1;
  bool fits = a && a->size() == 4;
  for (std::size_t i = 0; fits && i < 4; ++i) fits = (*a)[i] > 0 && !__builtin_mul_overflow(rows, (*a)[i], &rows);
  if (!fits) {
    j.not_compared = true;
    return j;
  }
  const std::int64_t slots = (*a)[1], page_size = (*a)[2], groups = (*a)[3];
  const std::int64_t per_pair = slots * page_size * groups;
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
    std::vector<std::int64_t> want;
    for (std::int64_t first = 0; first < rows; first += per_pair) {
      for (std::int64_t t = 0; t < page_size; ++t) want.push_back(first + (slots - 1) * page_size * groups + t * groups + g);
    }
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
};

const Relation kNixlTransfers{
    .judge = [](const Binding& b, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_transfers(b, args, actual, false); },
    .compared_with = every_byte,
    .findings = true,
};

const Relation kIndexFunction{
    .judge = judge_index_function,
    .compared_with = [](const Binding&) -> std::string { return "every index exact, on lists of more than 2^31 rows (SPEC §14B.8)"; },
    .findings = true,
};

}  // namespace tpcheck::conform
