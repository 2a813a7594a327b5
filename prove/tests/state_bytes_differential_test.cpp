// The recurrent state's byte layouts (SPEC §16.3) as terms are lib's: each
// side's state bytes and SSM offset, every conv element's and SSM element's
// offset, and the runs of every copy of lib's plans (the encoding's runs,
// merged where one continues another, are the runs lib visits), on a grid
// of every family, both Mamba2 cases, key dims unlike value dims, P > D, P < D
// and P = D, every conv order, both containers, one row and several, one
// byte and several. The layouts are not operations of `tpcheck eval`, so
// differential_test.cpp does not reach them.
#include <gtest/gtest.h>

#include <set>

#include "tpcheck/prove/encoding.hpp"
#include "tpcheck/prove/operations.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::prove::test {
namespace {

struct FamilyDims {
  StateFamily family;
  std::vector<std::int64_t> dims;
};

// Mamba2 in case A and case B, GDN with key dims unlike value dims, KDA, Mamba1.
const std::vector<FamilyDims> kDims = {{StateFamily::Mamba2, {4, 2, 2, 3}}, {StateFamily::Mamba2, {4, 2, 1, 3}},
                                       {StateFamily::Gdn, {2, 3, 4, 2}},    {StateFamily::Kda, {2, 3}},
                                       {StateFamily::Mamba1, {4, 3}}};
constexpr std::int64_t kSizes[] = {1, 2, 4};
constexpr StateContainer kContainers[] = {StateContainer::VllmPage, StateContainer::SglangPool};

StateDims<BigInt> model_dims(const FamilyDims& f) {
  StateDims<BigInt> d{f.family, {1, 1, 1, 1}};
  for (std::size_t i = 0; i < f.dims.size(); ++i) d.v[i] = f.dims[i];
  return d;
}

// Evaluates terms over numerals to their value.
class Terms {
 public:
  z3::context c;
  Encoding enc{c};
  z3::expr n(const BigInt& v) { return c.int_val(decimal(v).c_str()); }
  BigInt value(const z3::expr& e) {
    const std::optional<BigInt> v = constant_value(z3::expr(e).simplify());
    if (!v) ADD_FAILURE() << "not a constant: " << e;
    return v.value_or(BigInt(-1));
  }
  std::vector<z3::expr> dims(const FamilyDims& f) {
    std::vector<z3::expr> out;
    for (const std::int64_t v : f.dims) out.push_back(n(v));
    return out;
  }
};

struct Side {
  RankState<BigInt> state;
  StateSideTerms terms;
};

std::optional<Side> side_of(Terms& t, const FamilyDims& f, std::int64_t T) {
  const Outcome<RankState<BigInt>> s = state_ownership<BigInt>(BigInt(T), model_dims(f));
  if (!s.ok()) return std::nullopt;
  return Side{s.value(), t.enc.state_side(f.family, t.n(T), t.dims(f))};
}

std::string where(const FamilyDims& f, std::int64_t T, ConvOrder order) {
  std::string out = std::string(state_family_name(f.family));
  for (const std::int64_t v : f.dims) out += " " + std::to_string(v);
  return out + ", T = " + std::to_string(T) + ", " + std::string(conv_order_name(order));
}

TEST(StateBytesDifferential, EveryOffsetIsTheModels) {
  Terms t;
  std::size_t conv_offsets = 0, ssm_offsets = 0;
  for (const FamilyDims& f : kDims) {
    for (const std::int64_t T : kSizes) {
      const std::optional<Side> side = side_of(t, f, T);
      if (!side) continue;
      for (const ConvOrder order : kConvOrders) {
        for (const StateContainer container : kContainers) {
          for (const auto& [L, e] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {3, 2}}) {
            const SideBytes<BigInt> model = side_bytes<BigInt>(side->state, order, container, L, e, e + 2).value();
            const StateBytesTerms bytes{&side->terms, order, container, t.n(L), t.n(e), t.n(e + 2)};
            const std::string at = where(f, T, order) + ", L = " + std::to_string(L) + ", e = " + std::to_string(e);
            ASSERT_EQ(t.value(bytes.conv_bytes()), model.conv_bytes) << at;
            ASSERT_EQ(t.value(bytes.ssm_bytes()), model.ssm_bytes) << at;
            ASSERT_EQ(t.value(bytes.ssm_offset()), model.ssm_offset()) << at;
            for (std::size_t s = 0; s < side->state.segment_count; ++s) {
              for (BigInt j = 0; j < side->state.conv[s].width; ++j) {
                for (std::int64_t row = 0; row < L; ++row) {
                  for (const std::int64_t b : {std::int64_t{0}, e - 1}) {
                    ++conv_offsets;
                    ASSERT_EQ(t.value(bytes.conv_byte_at(s, t.n(j), t.n(row), t.n(b))),
                              conv_byte_at<BigInt>(model, s, j, BigInt(row), BigInt(b)))
                        << at << ": segment " << s << ", channel " << j << ", row " << row << ", byte " << b;
                  }
                }
              }
            }
            for (BigInt h = 0; h < side->state.h_loc; ++h) {
              ++ssm_offsets;
              const BigInt last = side->state.head_elements - 1;
              ASSERT_EQ(t.value(bytes.ssm_byte_at(t.n(h), t.n(last), t.n(e + 1))),
                        ssm_byte_at<BigInt>(model, h, last, BigInt(e + 1)))
                  << at << ": head " << h;
            }
          }
        }
      }
    }
  }
  std::cout << "  " << conv_offsets << " conv and " << ssm_offsets << " SSM offsets\n";
  EXPECT_GT(conv_offsets, 1000u);
  EXPECT_GT(ssm_offsets, 100u);
}

std::string runs_text(const std::vector<ByteRun<BigInt>>& runs) {
  std::string out;
  for (const ByteRun<BigInt>& r : runs) {
    out += std::string(r.part == StatePart::Ssm ? "ssm" : "conv") + " (" + decimal(r.src) + ", " + decimal(r.dst) +
           ", " + decimal(r.length) + ") ";
  }
  return out;
}

// The encoding's runs of a copy, in lib's order, merged as lib merges them.
std::vector<ByteRun<BigInt>> encoded_runs(Terms& t, const StateBytesTerms& sender, const StateBytesTerms& receiver,
                                          const StateCopy<BigInt>& copy, std::int64_t L) {
  const std::size_t s = copy.segment;
  const bool ssm = s == sender.side->conv_count();
  const std::vector<z3::expr> terms = {t.n(copy.p), t.n(copy.src), t.n(copy.dst), t.n(copy.n)};
  std::vector<ByteRun<BigInt>> out;
  const auto add = [&](const BigInt& k, std::int64_t row) {
    const ByteRunTerm r = t.enc.copy_run(sender, receiver, s, terms, t.n(k), t.n(row));
    const ByteRun<BigInt> run{r.ssm ? StatePart::Ssm : StatePart::Conv, t.value(r.src), t.value(r.dst),
                              t.value(r.length)};
    if (!out.empty() && out.back().part == run.part && out.back().src + out.back().length == run.src &&
        out.back().dst + out.back().length == run.dst) {
      out.back().length += run.length;
    } else {
      out.push_back(run);
    }
  };
  switch (runs_per(ssm, sender.order, receiver.order)) {
    case RunsPer::Copy: add(0, 0); break;
    case RunsPer::Row:
      for (std::int64_t row = 0; row < L; ++row) add(0, row);
      break;
    case RunsPer::Element:
      for (BigInt k = 0; k < copy.n; ++k) {
        for (std::int64_t row = 0; row < L; ++row) add(k, row);
      }
      break;
  }
  return out;
}

TEST(StateBytesDifferential, EveryCopysRunsAreTheModels) {
  Terms t;
  std::size_t copies = 0;
  std::set<std::string> reached;  // the ways the sizes and orders met
  for (const FamilyDims& f : kDims) {
    for (const std::int64_t P : kSizes) {
      for (const std::int64_t D : kSizes) {
        const std::optional<Side> prefill = side_of(t, f, P), decode = side_of(t, f, D);
        if (!prefill || !decode) continue;
        for (const ConvOrder from : kConvOrders) {
          for (const ConvOrder to : kConvOrders) {
            const std::int64_t L = 2, e = 2;
            const SideBytes<BigInt> sender =
                side_bytes<BigInt>(prefill->state, from, StateContainer::VllmPage, L, e, e + 2).value();
            const SideBytes<BigInt> receiver =
                side_bytes<BigInt>(decode->state, to, StateContainer::SglangPool, L, e, e + 2).value();
            const StateBytesTerms send{&prefill->terms, from, StateContainer::VllmPage, t.n(L), t.n(e), t.n(e + 2)};
            const StateBytesTerms receive{&decode->terms, to, StateContainer::SglangPool, t.n(L), t.n(e), t.n(e + 2)};
            for (std::int64_t d = 0; d < D; ++d) {
              const std::vector<StateCopy<BigInt>> plan = state_plan<BigInt>(d, P, D, model_dims(f)).value();
              for (const StateCopy<BigInt>& c : plan) {
                std::vector<ByteRun<BigInt>> model;
                for_each_copy_run(c, sender, receiver, [&](const ByteRun<BigInt>& r) {
                  model.push_back(r);
                  return true;
                });
                ++copies;
                reached.insert(std::string(P > D ? "P > D" : P < D ? "P < D" : "P = D") + ", " +
                               (from == to ? "one order" : "two orders"));
                ASSERT_EQ(runs_text(encoded_runs(t, send, receive, c, L)), runs_text(model))
                    << where(f, P, from) << " -> D = " << D << " " << conv_order_name(to) << ", copy " << render(c);
              }
            }
          }
        }
      }
    }
  }
  std::cout << "  " << copies << " copies\n";
  EXPECT_EQ(reached.size(), 6u);
}

}  // namespace
}  // namespace tpcheck::prove::test
