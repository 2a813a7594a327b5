// The manual's tables (`tpcheck docs`, cli/docs_tables.hpp) say something
// for everything they list: a profile, invariant or command added later gets
// a row that reads, not a blank or a "?" (the docs tests only compare the
// pages with what tpcheck prints, whatever it prints).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "commands.hpp"
#include "docs_tables.hpp"
#include "tpcheck/conform/binding_text.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::cli {
namespace {

// Lines of a Markdown table: the header, the rule, then one per row.
std::size_t rows_of(const std::string& table) {
  std::size_t lines = 0;
  for (char c : table) lines += c == '\n';
  return lines >= 2 ? lines - 2 : 0;
}

TEST(DocsTables, EveryProfileFunctionIsFoundCalledAndComparedInWords) {
  ASSERT_FALSE(conform::profile_names().empty());
  for (const std::string& profile : conform::profile_names()) {
    const auto bindings = conform::profile_bindings(profile);
    ASSERT_TRUE(bindings.has_value()) << profile;
    for (const conform::Binding& b : *bindings) {
      for (const std::string& text : {conform::looked_for(b), conform::called_as(b), conform::compared_with(b)}) {
        EXPECT_FALSE(text.empty()) << profile << " " << b.name;
        EXPECT_EQ(text.find('?'), std::string::npos) << profile << " " << b.name << ": " << text;
      }
    }
    std::ostringstream table;
    ASSERT_TRUE(write_profile_table(table, profile));
    EXPECT_EQ(rows_of(table.str()), bindings->size()) << table.str();
  }
  std::ostringstream unknown;
  EXPECT_FALSE(write_profile_table(unknown, "no-such-profile"));
  EXPECT_TRUE(unknown.str().empty());
}

TEST(DocsTables, ProfileTableNamesHowEachKindOfCallIsMade) {
  const auto nixl = conform::profile_bindings("vllm-nixl");
  ASSERT_TRUE(nixl.has_value());
  const conform::Binding& window = nixl->at(1);
  EXPECT_EQ(conform::looked_for(window),
            "method `handshake_target_ranks` or `get_target_remote_ranks` of `TransferTopology` or `TpKVTopology`");
  EXPECT_EQ(conform::compared_with(window), "`window(r, L, R)`: value or exact error");
  const auto moriio = conform::profile_bindings("vllm-moriio");
  ASSERT_TRUE(moriio.has_value());
  const conform::Binding& quorum = moriio->at(3);
  EXPECT_EQ(conform::called_as(quorum), "`(D, P, p)`");
  EXPECT_EQ(conform::compared_with(quorum), "`single_readers(p, P, D)`: value or exact error");
}

TEST(DocsTables, EveryInvariantHasARowWithItsProofStatus) {
  std::ostringstream table;
  write_invariants_table(table);
  EXPECT_EQ(rows_of(table.str()), inv::registry().size());
  for (const inv::Entry& e : inv::registry()) {
    EXPECT_NE(table.str().find("| `" + std::string(e.name) + "` | " + e.section + " |"), std::string::npos) << e.name;
    EXPECT_NE(std::string(proof_status_text(e.proof)), "undeclared") << e.name;
  }
  std::ostringstream proofs;
  write_proof_table(proofs);
  EXPECT_EQ(rows_of(proofs.str()), inv::registry().size());
}

TEST(DocsTables, EveryCommandHasARowAndAUsage) {
  std::ostringstream table;
  write_commands_table(table);
  EXPECT_EQ(rows_of(table.str()), command_infos().size());
  for (const CommandInfo& c : command_infos()) {
    std::ostringstream usage;
    ASSERT_TRUE(write_usage(usage, c.name)) << c.name;
    EXPECT_EQ(usage.str().rfind("```text\nusage: tpcheck " + std::string(c.name), 0), 0u) << usage.str();
    EXPECT_TRUE(usage.str().ends_with("\n```\n")) << c.name;
  }
  std::ostringstream unknown;
  EXPECT_FALSE(write_usage(unknown, "no-such-command"));
}

TEST(DocsTables, CellsKeepTheirPipesInside) {
  // `|window(p, P, D)|` sits in a cell: its pipes must not split the row.
  std::ostringstream table;
  ASSERT_TRUE(write_profile_table(table, "vllm-nixl"));
  EXPECT_NE(table.str().find("`\\|window(p, P, D)\\|`"), std::string::npos) << table.str();
}

}  // namespace
}  // namespace tpcheck::cli
