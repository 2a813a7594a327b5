#include "tpcheck/conform/judge.hpp"

#include <algorithm>

#include "tpcheck/operations.hpp"
#include "tpcheck/outcome.hpp"

namespace tpcheck::conform {
namespace {

// Producer ranks past this many are checked at a sample (both ends, the
// middle), not one by one: the count's shape only changes at those.
constexpr std::int64_t kAllRanksUpTo = 4096;

bool is_failure_text(const std::string& rendered) {
  for (const ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError}) {
    const std::string prefix = std::string(kind_name(k)) + ": ";
    if (rendered.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

// The kind of deviation of `actual` from `expected`, if any.
std::optional<Kind> classify(const std::string& expected, const Actual& actual) {
  switch (actual.status) {
    case Actual::Status::NotRun: return std::nullopt;
    case Actual::Status::TimedOut: return Kind::TimedOut;
    case Actual::Status::Crashed: return Kind::Crashed;
    case Actual::Status::Raised:
      if (!is_modelled_exception(actual.exception_class)) return Kind::Crashed;
      if (actual.rendered() == expected) return std::nullopt;
      return is_failure_text(expected) ? Kind::WrongError : Kind::RejectsValid;
    case Actual::Status::Value:
      if (actual.text == expected) return std::nullopt;
      return is_failure_text(expected) ? Kind::AcceptsInvalid : Kind::WrongValue;
  }
  return std::nullopt;
}

bool above(const std::string& actual, const std::string& expected) {
  const auto a = parse_decimal(actual);
  const auto e = parse_decimal(expected);
  return a && e && *a > *e;
}

std::string call_text(const std::string& op, const std::vector<BigInt>& args) {
  std::string s = op + "(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + decimal(args[i]);
  return s + ")";
}

}  // namespace

bool is_modelled_exception(const std::string& cls) {
  for (const ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError}) {
    if (cls == kind_name(k)) return true;
  }
  return false;
}

std::string argument_text(const std::string& param, const BigInt& value) {
  if (param == "MLA") return value != 0 ? "T" : "F";
  const auto small = narrow(value);  // cpp_int's own printing is far slower
  return small ? decimal(*small) : decimal(value);
}

std::string model_outcome(std::size_t op, const std::vector<BigInt>& args) {
  std::vector<std::int64_t> small;
  for (const auto& a : args) {
    const auto n = narrow(a);
    if (!n) return evaluate_big(op, args);
    small.push_back(*n);
  }
  return evaluate_int64(op, small);
}

Judgement judge(const Binding& b, std::size_t op, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  if (b.relation == Relation::Exact) {
    std::vector<BigInt> model_args;
    for (const std::size_t k : b.model_from_case) model_args.push_back(args[k]);
    j.expected = model_outcome(op, model_args);
    j.kind = classify(j.expected, actual);
  } else {
    // One count for every producer rank p of (P, D): single_readers(p, P, D)
    // must be that count for each p, and fail (identically for every p) where
    // it fails. Rank 0 stands for all ranks when there are none or it fails.
    const BigInt& P = args[0];
    const BigInt& D = args[1];
    std::vector<BigInt> ranks = {0};
    if (P > 0 && P <= kAllRanksUpTo) {
      for (BigInt p = 1; p < P; ++p) ranks.push_back(p);
    } else if (P > kAllRanksUpTo) {
      ranks = {0, 1, 2, P / 2 - 1, P / 2, P - 2, P - 1};
    }
    for (const BigInt& p : ranks) {
      const std::vector<BigInt> model_args = {p, P, D};
      j.expected = model_outcome(op, model_args);
      j.kind = classify(j.expected, actual);
      j.note = "for producer rank " + decimal(p) + ": " + call_text(b.model_op, model_args);
      if (j.kind || is_failure_text(j.expected)) break;
    }
  }
  if (j.kind == Kind::WrongValue) j.too_many = above(actual.text, j.expected);
  if (!j.kind) j.note.clear();
  return j;
}

}  // namespace tpcheck::conform
