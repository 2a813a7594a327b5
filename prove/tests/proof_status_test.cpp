// The registry declares what is proved (Proof::by_z3, stated, not_provable)
// and prove/ holds only goals keyed by the registry's names: the two must
// agree, and the check that says so must catch each way they can disagree.
#include <gtest/gtest.h>

#include <algorithm>

#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove::test {
namespace {

std::vector<Goal> no_goals(const Encoding&) { return {}; }

inv::Entry entry(const char* name, inv::Proof proof) {
  inv::Entry e;
  e.name = name;
  e.proof = proof;
  return e;
}

bool names(const std::vector<std::string>& lines, const std::string& name, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.rfind(name + ":", 0) == 0 && l.find(what) != std::string::npos;
  });
}

TEST(ProofStatus, TheRegistryAndTheGoalsAgree) {
  const std::vector<std::string> disagreements = proof_status_disagreements(inv::registry(), invariant_goals());
  for (const std::string& d : disagreements) ADD_FAILURE() << d;
  // Every entry's status is declared, and the goals of each proved one exist.
  std::size_t proved = 0;
  for (const inv::Entry& e : inv::registry()) {
    proved += e.proof.status == inv::Proof::Status::ByZ3;
    if (e.proof.has_goals()) {
      EXPECT_NE(goals_of(e.name), nullptr) << e.name;
    }
  }
  EXPECT_GT(proved, 0u);
}

TEST(ProofStatus, EachWayOfDisagreeingIsCaught) {
  const std::vector<inv::Entry> registry = {
      entry("Undeclared", inv::Proof{}),
      entry("ProvedWithoutGoals", inv::Proof::by_z3("all integers")),
      entry("StatedWithoutGoals", inv::Proof::stated("too slow")),
      entry("NotProvableWithGoals", inv::Proof::not_provable("a sum")),
      entry("ProvedWithoutText", inv::Proof::by_z3("")),
      entry("Agrees", inv::Proof::by_z3("all integers")),
      entry("AgreesNotProvable", inv::Proof::not_provable("a sum")),
      entry("ProvedButNotStatable", inv::Proof::by_z3("all integers")),
  };
  const std::vector<InvariantGoals> goals = {{"NotProvableWithGoals", no_goals}, {"ProvedWithoutText", no_goals},
                                             {"Agrees", no_goals}, {"NoSuchEntry", no_goals},
                                             {"ProvedButNotStatable", nullptr, "no encoded operation pp_stage"}};
  const std::vector<std::string> d = proof_status_disagreements(registry, goals);
  for (const std::string& line : d) std::cout << "  " << line << "\n";
  EXPECT_TRUE(names(d, "Undeclared", "declares no proof status"));
  EXPECT_TRUE(names(d, "ProvedWithoutGoals", "prove/ has no goals"));
  EXPECT_TRUE(names(d, "StatedWithoutGoals", "prove/ has no goals"));
  EXPECT_TRUE(names(d, "NotProvableWithGoals", "not provable, prove/ has goals"));
  EXPECT_TRUE(names(d, "ProvedWithoutText", "no text"));
  EXPECT_TRUE(names(d, "NoSuchEntry", "the registry has no such invariant"));
  // An error oracle of an operation the encoding lacks: no goals, and why.
  EXPECT_TRUE(names(d, "ProvedButNotStatable", "prove/ has no goals for it (no encoded operation pp_stage)"));
  EXPECT_FALSE(names(d, "Agrees", ""));
  EXPECT_FALSE(names(d, "AgreesNotProvable", ""));
  EXPECT_EQ(d.size(), 7u);
}

}  // namespace
}  // namespace tpcheck::prove::test
