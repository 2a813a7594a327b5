// SPEC §16.6's helpers of NIXL's hybrid transfer that move no bytes: the
// block count of a hybrid page (exactly ceil((conv + ssm) / block_len)), the
// KV heads a rank's cache holds (§4), and the overlap of two ranges.
#include <algorithm>

#include "nixl_state.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck::conform::nixl {
namespace {

using I = std::int64_t;

Judgement not_compared() {
  Judgement j;
  j.not_compared = true;
  return j;
}

std::string int_list(I first, I end) {
  std::string s = "[";
  for (I h = first; h < end; ++h) s += (h > first ? ", " : "") + decimal(h);
  return s + "]";
}

// (conv, ssm, block_len): the kernel blocks one logical block spans, an
// integer counted exactly.
Judgement judge_blocks_per_logical(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  const BigInt& block_len = args[2];
  const BigInt total = args[0] + args[1];
  j.expected = decimal((total + block_len - 1) / block_len);
  const std::string call = "(" + decimal(args[0]) + ", " + decimal(args[1]) + ") over " + decimal(block_len) + ": ";
  const std::string want = "ceil(" + decimal(total) + " / " + decimal(block_len) + ") = " + j.expected;
  switch (actual.status) {
    case Actual::Status::NotRun: break;
    case Actual::Status::Value:
      if (actual.text != j.expected) j.findings.push_back({"inexact_ceil", {}, want, call + actual.text});
      break;
    case Actual::Status::Raised:
      j.findings.push_back({"raises:" + actual.exception_class, {}, want, call + actual.rendered()});
      break;
    case Actual::Status::Crashed:
    case Actual::Status::TimedOut: return unreadable(actual);
  }
  return j;
}

// (T, H, r): heads(r, T) of §4 where (T, H) is head-compatible; a bare
// AssertionError where T <= H does not divide H; nothing to compare else.
Judgement judge_physical_head_range(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (!a) return not_compared();
  const I T = (*a)[0], H = (*a)[1], r = (*a)[2];
  Judgement j;
  if (T <= H && H % T != 0) {
    j.expected = "AssertionError: ";
  } else if (head_compatible<I>(T, H)) {
    const auto own = heads<I>(r, T, H).value();
    j.expected = int_list(own.first, own.end);
    j.note = "heads(" + decimal(r) + ", " + decimal(T) + ", " + decimal(H) + ")";
  } else {
    return not_compared();
  }
  j.kind = classify(j.expected, actual);
  if (j.kind == Kind::WrongValue) j.effect = Effect::WrongHeads;
  return j;
}

// (a0, a1, b0, b1): the heads range(a0, a1) and range(b0, b1) share.
Judgement judge_range_overlap(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (!a) return not_compared();
  Judgement j;
  j.expected = int_list(std::max((*a)[0], (*a)[2]), std::min((*a)[1], (*a)[3]));
  j.kind = classify(j.expected, actual);
  if (j.kind == Kind::WrongValue) j.effect = Effect::WrongHeads;
  return j;
}

}  // namespace

const Relation kBlocksPerLogical{
    .judge = judge_blocks_per_logical,
    .compared_with =
        [](const Binding&) -> std::string {
          return "an integer, exactly `ceil((conv + ssm) / block_len)`, sums past 2^53 included: a count that is off "
                 "is `inexact_ceil`";
        },
    .findings = true,
};

const Relation kPhysicalHeadRange{
    .judge = judge_physical_head_range,
    .compared_with =
        [](const Binding&) -> std::string {
          return "`heads(rank, tp_size, num_heads)` as a range (SPEC §4); a bare `AssertionError` where `tp_size <= "
                 "num_heads` does not divide it";
        },
    .not_compared = "head counts a TP size larger than them does not divide (SPEC §4: the model does not load there)",
};

const Relation kRangeOverlap{
    .judge = judge_range_overlap,
    .compared_with = [](const Binding&) -> std::string { return "the intersection of the two ranges, empty when none"; },
};

}  // namespace tpcheck::conform::nixl
