// SPEC §11: which connector accepts which sizing, with the exact error each
// rejection raises and the reason an operator is told (sizing_verdict).
#include <optional>
#include <string>

#include "model_test_support.hpp"
#include "tpcheck/deployment.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct Deployments : ::testing::Test {
  static std::string accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla) {
    return render(sizing_accepted<Int>(c, P, D, H, mla));
  }
  static std::optional<Rejection> reason(Connector c, const Int& P, const Int& D, const Int& H, bool mla) {
    const SizingVerdict v = sizing_verdict<Int>(c, P, D, H, mla);
    EXPECT_EQ(v.outcome, sizing_accepted<Int>(c, P, D, H, mla));
    EXPECT_EQ(v.outcome.ok(), !v.reason.has_value());
    return v.reason;
  }
};
TYPED_TEST_SUITE(Deployments, ModelInts, IntName);

// The SPEC's two examples: the prefill side replicates heads and is larger.
TYPED_TEST(Deployments, NixlRefusesUnreadReplicasWithABareAssertion) {
  EXPECT_EQ(this->accepted(Connector::Nixl, 2, 1, 1, false), "AssertionError: ");
  EXPECT_EQ(this->accepted(Connector::Nixl, 4, 2, 2, false), "AssertionError: ");
  EXPECT_EQ(this->reason(Connector::Nixl, 2, 1, 1, false), Rejection::NixlReplicaRule);
  EXPECT_EQ(this->reason(Connector::Nixl, 4, 2, 2, false), Rejection::NixlReplicaRule);
  // Mooncake pushes from every rank of the window: it serves both.
  EXPECT_EQ(this->accepted(Connector::Mooncake, 2, 1, 1, false), "None");
  EXPECT_EQ(this->accepted(Connector::Mooncake, 4, 2, 2, false), "None");
}

TYPED_TEST(Deployments, NixlReplicaRuleNeedsAllThreeConditions) {
  EXPECT_EQ(this->accepted(Connector::Nixl, 2, 1, 1, true), "None");   // MLA
  EXPECT_EQ(this->accepted(Connector::Nixl, 4, 2, 4, false), "None");  // P == H: heads split, not replicated
  EXPECT_EQ(this->accepted(Connector::Nixl, 4, 4, 2, false), "None");  // P == D
  EXPECT_EQ(this->accepted(Connector::Nixl, 2, 4, 1, false), "None");  // decode larger
  EXPECT_EQ(this->accepted(Connector::Nixl, 8, 2, 4, false), "AssertionError: ");
}

TYPED_TEST(Deployments, DivisibilityComesBeforeTheReplicaRule) {
  EXPECT_EQ(this->accepted(Connector::Nixl, 6, 4, 2, false),
            "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
  EXPECT_EQ(this->reason(Connector::Nixl, 6, 4, 2, false), Rejection::NotDivisible);
}

TYPED_TEST(Deployments, ReasonsOfTheOtherRules) {
  EXPECT_EQ(this->reason(Connector::General, 4, 6, 8, false), Rejection::HeadsDoNotShard);
  EXPECT_EQ(this->accepted(Connector::General, 4, 6, 8, false),
            "ValueError: total_num_kv_heads 8 cannot be sharded over decode tp_size 6: one must divide the other");
  EXPECT_EQ(this->reason(Connector::MoRIIO, 4, 6, 2, false), Rejection::NotDivisible);
  EXPECT_EQ(this->reason(Connector::MoRIIO, 4, 8, 8, false), Rejection::HeadGuard);
  EXPECT_EQ(this->accepted(Connector::MoRIIO, 4, 8, 8, false),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=8, local_tp_size=8, remote_tp_size=4.");
  EXPECT_EQ(this->reason(Connector::Mooncake, 0, 4, 8, false), Rejection::NotPositive);
  EXPECT_EQ(this->reason(Connector::General, 4, 6, 2, false), std::nullopt);
  EXPECT_EQ(this->reason(Connector::General, 4, 6, 0, true), std::nullopt);
}

}  // namespace
}  // namespace tpcheck::test
