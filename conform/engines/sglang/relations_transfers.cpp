// SPEC §14B: the bytes SGLang's transfers move, from the child's captures
// (capture.hpp, capture_judge.hpp) to the byte judge of KV pages
// (byte_judge.hpp): Mooncake's batches of (source, destination, length),
// NIXL's prepared descriptor lists and the transfers that select rows of
// them, who sends to whom, and §14B.8's probe of the descriptor index
// function alone.
#include <algorithm>
#include <map>
#include <set>

#include "capture.hpp"
#include "capture_judge.hpp"
#include "sglang.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/written.hpp"
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
