// Fuzz target: the int64 model against the cpp_int model (SPEC §0, §9.5).
//
// Property, for any operation of `tpcheck eval` and any int64 arguments:
//   1. decode an operation and one argument per parameter (an MLA parameter
//      is a flag; every other one an integer wrapped to 64 bits, so the
//      extremes and values near them come up often);
//   2. skip a window or plan of more than 4096 elements that the model
//      would still list (up to 2^20): the lists are the same in both types,
//      and building a million elements twice only slows the search (longer
//      ones the model refuses at once, and that refusal is compared);
//   3. evaluate it in int64 and in cpp_int: the rendered outcomes (value or
//      exact error) must be identical, or the input aborts with both.
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/operations.hpp"

namespace {

constexpr std::int64_t kMaxListedHere = 4096;

// Lists past kMaxListedHere elements take long to build, up to the model's
// own limit; past that the model refuses at once, which stays checked.
template <class Int>
bool slow_to_list(const Int& count) {
  return count > kMaxListedHere && count <= tpcheck::kMaxListed;
}

// Whether the operation would list more than kMaxListedHere elements.
bool too_long(std::string_view op, const std::vector<std::int64_t>& a) {
  if (op == "window") {
    const auto span = tpcheck::window_span<std::int64_t>(a[0], a[1], a[2]);
    return span.ok() && slow_to_list(span.value().end - span.value().first);
  }
  if (op == "plan") {
    const auto count = tpcheck::plan_copy_count<std::int64_t>(a[0], a[1], a[2], a[3], a[4] != 0);
    return count.ok() && slow_to_list(count.value());
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpcheck::fuzz::FuzzInput in(data, size);
  const auto& ops = tpcheck::operation_infos();
  static const std::vector<std::string_view> names = [&] {
    std::vector<std::string_view> v;
    for (const auto& info : ops) v.push_back(info.name);
    return v;
  }();
  const tpcheck::OperationInfo& op = ops[in.choice("op", names)];
  std::vector<std::int64_t> args;
  for (std::string_view param : op.params) {
    args.push_back(param == "MLA" ? (in.flag(param) ? 1 : 0) : in.int64(param));
  }
  if (too_long(op.name, args)) return 0;
  tpcheck::fuzz::require(tpcheck::inv::int64_agrees_with_cpp_int(op.name, args), "agreement (int64 == cpp_int)");
  return 0;
}
