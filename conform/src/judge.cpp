#include "tpcheck/conform/judge.hpp"

#include "tpcheck/conform/binding_text.hpp"
#include "tpcheck/conform/written.hpp"
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

// Exact comparison's end: a wrong value above the model's is too many (a
// count), and a conforming case needs no note.
Judgement finished(Judgement j, const Actual& actual) {
  if (j.kind == Kind::WrongValue) j.too_many = above(actual.text, j.expected);
  if (!j.kind) j.note.clear();
  return j;
}

Judgement judge_exact(const Binding& b, std::size_t op, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  // Most cases fit int64: the model runs there without a cpp_int in sight
  // (nor an allocation for its arguments).
  thread_local std::vector<std::int64_t> small;
  small.clear();
  for (const std::size_t k : b.model_from_case) {
    const auto v = narrow(args[k]);
    if (!v) break;
    small.push_back(*v);
  }
  if (small.size() == b.model_from_case.size()) {
    j.expected = evaluate_int64(op, small);
  } else {
    std::vector<BigInt> model_args;
    for (const std::size_t k : b.model_from_case) model_args.push_back(args[k]);
    j.expected = evaluate_big(op, model_args);
  }
  j.kind = classify(j.expected, actual);
  return finished(std::move(j), actual);
}

// One count for every producer rank p of (P, D): single_readers(p, P, D)
// must be that count for each p, and fail (identically for every p) where it
// fails. Rank 0 stands for all ranks when there are none or it fails.
// The producer ranks a count for all of P's is checked against: every one,
// or for a huge P a sample (both ends, the middle). Rank 0 stands for all
// ranks when there are none.
std::vector<BigInt> producer_ranks(const BigInt& P) {
  std::vector<BigInt> ranks = {0};
  if (P > 0 && P <= kAllRanksUpTo) {
    for (BigInt p = 1; p < P; ++p) ranks.push_back(p);
  } else if (P > kAllRanksUpTo) {
    ranks = {0, 1, 2, P / 2 - 1, P / 2, P - 2, P - 1};
  }
  return ranks;
}

Judgement judge_count_for_every_rank(const Binding& b, std::size_t op, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  const BigInt& P = args[0];
  const BigInt& D = args[1];
  for (const BigInt& p : producer_ranks(P)) {
    const std::vector<BigInt> model_args = {p, P, D};
    j.expected = model_outcome(op, model_args);
    j.kind = classify(j.expected, actual);
    j.note = "for producer rank " + decimal(p) + ": " + call_text(b.model_op, model_args);
    if (j.kind || is_failure_text(j.expected)) break;
  }
  return finished(std::move(j), actual);
}

std::vector<BigInt> model_args_of(const Binding& b, const CaseArgs& args) {
  std::vector<BigInt> out;
  for (const std::size_t k : b.model_from_case) out.push_back(args[k]);
  return out;
}

std::vector<WrittenItem> exact_items(const Binding& b, std::size_t op, const CaseArgs& args, const Actual*) {
  return {{{}, expected_outcome(model_outcome(op, model_args_of(b, args)))}};
}

// One item per producer rank p (the ranks the judge asks about): the one
// count the function returns must be each one's.
std::vector<WrittenItem> count_items(const Binding&, std::size_t op, const CaseArgs& args, const Actual*) {
  std::vector<WrittenItem> out;
  for (const BigInt& p : producer_ranks(args[0])) {
    out.push_back({{p}, expected_outcome(model_outcome(op, {p, args[0], args[1]}))});
    if (out.back().expected.form != Expected::Form::Value) break;  // fails alike for every rank
  }
  return out;
}

}  // namespace

const Relation kExact{
    .judge = judge_exact,
    .compared_with = [](const Binding& b) { return "`" + model_call(b) + "`: value or exact error"; },
    .test_items = exact_items,
};

const Relation kCountForEveryProducerRank{
    .judge = judge_count_for_every_rank,
    .compared_with =
        [](const Binding& b) {
          return "`" + b.model_op + "(p, P, D)` for every prefill rank `p`: one count must fit them all, and it fails "
                 "where they fail";
        },
    .test_items = count_items,
    .test_coords = {"p"},
};

std::optional<Kind> classify(const std::string& expected, const Actual& actual) {
  switch (actual.status) {
    case Actual::Status::NotRun: return std::nullopt;
    case Actual::Status::TimedOut: return Kind::TimedOut;
    case Actual::Status::Crashed: return Kind::Crashed;
    case Actual::Status::Raised: {
      if (!is_modelled_exception(actual.exception_class)) return Kind::Crashed;
      // expected == "Class: message", compared without building the string
      const std::string& cls = actual.exception_class;
      const bool same = expected.size() == cls.size() + 2 + actual.text.size() && expected.compare(0, cls.size(), cls) == 0 &&
                        expected.compare(cls.size(), 2, ": ") == 0 &&
                        expected.compare(cls.size() + 2, std::string::npos, actual.text) == 0;
      if (same) return std::nullopt;
      return is_failure_text(expected) ? Kind::WrongError : Kind::RejectsValid;
    }
    case Actual::Status::Value:
      if (actual.text == expected) return std::nullopt;
      return is_failure_text(expected) ? Kind::AcceptsInvalid : Kind::WrongValue;
  }
  return std::nullopt;
}

bool is_modelled_exception(const std::string& cls) {
  for (const ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError}) {
    if (cls == kind_name(k)) return true;
  }
  return false;
}

std::string model_outcome(std::size_t op, const std::vector<BigInt>& args) {
  std::vector<std::int64_t> small;
  small.reserve(args.size());
  for (const auto& a : args) {
    const auto n = narrow(a);
    if (!n) return evaluate_big(op, args);
    small.push_back(*n);
  }
  return evaluate_int64(op, small);
}

std::optional<std::vector<std::int64_t>> small_args(const CaseArgs& args) {
  std::vector<std::int64_t> out;
  for (const BigInt& a : args) {
    const auto v = narrow(a);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

Judgement unreadable(const Actual& actual) {
  Judgement j;
  const auto kind = classify("", actual);
  j.findings.push_back({kind ? kind_id(*kind) : "crashed", {std::nullopt, std::nullopt},
                        "the configuration's calls made", actual.rendered()});
  return j;
}

Judgement judge(const Binding& b, std::size_t op, const CaseArgs& args, const Actual& actual) {
  if (actual.status == Actual::Status::NotRun) return {};
  return b.relation->judge(b, op, args, actual);
}

std::string not_compared_reason(const Binding& b) {
  return b.relation->not_compared ? b.relation->not_compared : "cases outside int64, which this relation does not compare";
}

}  // namespace tpcheck::conform
