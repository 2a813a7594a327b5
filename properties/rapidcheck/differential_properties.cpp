// SPEC §9.5: the int64 model and the cpp_int model agree on every int64 input.
// This is the property that sees an int64 product overflowing (r * R for sizes
// beyond 2^32): only large inputs reach it, and cpp_int is the truth.
#include <vector>

#include "property.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::rcprop {
namespace {

using Args = std::vector<std::int64_t>;
using rcgen::to_model;

// Arguments for an operation, drawn by the shape of its parameter list.
Args draw_args(const OperationInfo& op) {
  const std::vector<std::string_view> p(op.params.begin(), op.params.end());
  const auto named = [&](std::initializer_list<std::string_view> names) {
    return std::equal(p.begin(), p.end(), names.begin(), names.end());
  };
  if (named({"r", "L", "R"})) {
    const auto c = rcgen::draw_rank_case<std::int64_t>();
    return {c.r, c.L, c.R};
  }
  if (named({"L", "R"})) {
    const auto c = rcgen::draw_rank_case<std::int64_t>();
    return {c.L, c.R};
  }
  if (named({"p", "P", "D"})) {
    const auto c = rcgen::draw_rank_case<std::int64_t>();
    return {c.r, c.L, c.R};
  }
  if (named({"r", "T", "H"})) {
    const auto c = rcgen::draw_head_case<std::int64_t>();
    return {to_model<std::int64_t>(rcgen::draw_rank<std::int64_t>(c.D)), c.D, c.H};
  }
  if (named({"L", "R", "H", "MLA"})) {
    const auto c = rcgen::draw_head_case<std::int64_t>();
    return {c.D, c.P, c.H, c.mla ? 1 : 0};
  }
  if (named({"d", "P", "D", "H", "MLA"})) {
    const auto c = rcgen::draw_head_case<std::int64_t>();
    return {to_model<std::int64_t>(rcgen::draw_rank<std::int64_t>(c.D)), c.P, c.D, c.H, c.mla ? 1 : 0};
  }
  if (named({"p", "P", "D", "H", "MLA"})) {
    const auto c = rcgen::draw_head_case<std::int64_t>();
    return {to_model<std::int64_t>(rcgen::draw_rank<std::int64_t>(c.P)), c.P, c.D, c.H, c.mla ? 1 : 0};
  }
  if (named({"DP_RANK", "TP_RANK", "TP_SIZE"})) {
    const auto c = rcgen::draw_port_case<std::int64_t>();
    return {c.dp, c.t, c.T};
  }
  if (named({"q", "T", "HOSTS"})) {
    const auto c = rcgen::draw_rank_case<std::int64_t>();
    return {c.r, c.L, to_model<std::int64_t>(rcgen::draw_host_count<std::int64_t>(c.L))};
  }
  // An operation added later: small values, so nothing long is listed.
  Args args;
  for (std::size_t i = 0; i < p.size(); ++i) args.push_back(rcgen::pick<std::int64_t>(-2, 65));
  return args;
}

RC_GTEST_PROP(Differential, Int64ModelAgreesWithCppIntModel, ()) {
  const std::vector<OperationInfo>& ops = operation_infos();
  const OperationInfo& op = ops[rcgen::pick_named<std::size_t>("operation index", 0, ops.size())];
  const Args args = draw_args(op);
  BigInt largest = 0;
  for (std::int64_t a : args) largest = std::max(largest, BigInt(boost::multiprecision::abs(BigInt(a))));
  RC_TAG(std::string(op.name), magnitude(largest));
  hold(inv::int64_agrees_with_cpp_int(op.name, args));
}

}  // namespace
}  // namespace tpcheck::rcprop
