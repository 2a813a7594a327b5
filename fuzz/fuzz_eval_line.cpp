// Fuzz target: the `tpcheck eval --batch` line parser (tpcheck::evaluate_line).
//
// Property, for any bytes taken as one line:
//   1. evaluate_line must return (never crash, hang or overflow), with a
//      non-empty one-line text;
//   2. independently, split the line on whitespace and decide whether it is a
//      valid call: a known operation, its number of arguments, every argument
//      a decimal integer tpcheck::parse_decimal accepts, MLA arguments 0 or 1;
//   3. a valid call must be accepted and its text must be the cpp_int model's
//      outcome on the parsed integers (the int64 path, taken when they fit,
//      must agree); an invalid one must be rejected with a usage error;
//   4. any disagreement aborts with the line and both texts.
// A window or plan of 4096 to 2^20 elements is skipped (cost only: it lists).
#include <sstream>
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

struct Call {
  std::size_t op = 0;
  std::vector<tpcheck::BigInt> args;
};

// The call a line makes, if it is a valid one.
std::optional<Call> valid_call(const std::string& line) {
  std::istringstream words(line);
  std::string name;
  if (!(words >> name)) return std::nullopt;
  const auto op = tpcheck::operation_index(name);
  if (!op) return std::nullopt;
  const auto& params = tpcheck::operation_infos()[*op].params;
  Call call{*op, {}};
  for (std::string word; words >> word;) {
    const auto value = tpcheck::parse_decimal(word);
    if (!value || call.args.size() >= params.size()) return std::nullopt;
    if (params[call.args.size()] == "MLA" && *value != 0 && *value != 1) return std::nullopt;
    call.args.push_back(*value);
  }
  if (call.args.size() != params.size()) return std::nullopt;
  return call;
}

bool too_long(const Call& c) {
  using tpcheck::BigInt;
  const auto name = tpcheck::operation_infos()[c.op].name;
  const auto& a = c.args;
  if (name == "window") {
    const auto span = tpcheck::window_span<BigInt>(a[0], a[1], a[2]);
    return span.ok() && slow_to_list(span.value().end - span.value().first);
  }
  if (name == "plan") {
    const auto count = tpcheck::plan_copy_count<BigInt>(a[0], a[1], a[2], a[3], a[4] != 0);
    return count.ok() && slow_to_list(count.value());
  }
  return false;
}

void fail(const std::string& line, const std::string& what) {
  tpcheck::fuzz::require("line '" + line + "': " + what, "eval line parser");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  if (line.find('\n') != std::string::npos) return 0;  // --batch splits lines first
  const std::optional<Call> call = valid_call(line);
  if (call && too_long(*call)) return 0;
  const tpcheck::Evaluation got = tpcheck::evaluate_line(line);
  if (got.text.empty() || got.text.find('\n') != std::string::npos) fail(line, "text is not one line: '" + got.text + "'");
  if (!call) {
    if (got.ok) fail(line, "an invalid call was accepted, giving " + got.text);
    return 0;
  }
  if (!got.ok) fail(line, "a valid call was rejected: " + got.text);
  const std::string truth = tpcheck::evaluate_big(call->op, call->args);
  if (got.text != truth) fail(line, "gives " + got.text + " but the cpp_int model gives " + truth);
  return 0;
}
