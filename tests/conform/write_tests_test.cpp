// Unit tests of what --write-tests writes with: the blocks of the written
// parts and the child, Python literals, file names and modules, and the
// outcome classes the cases are grouped by.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_parts.hpp"
#include "tpcheck/conform/selection.hpp"
#include "tpcheck/conform/write_tests.hpp"
#include "tpcheck/conform/written.hpp"

namespace tpcheck::conform {
namespace {

std::set<std::string> block_names(const std::vector<const PartBlock*>& blocks) {
  std::set<std::string> out;
  for (const auto* b : blocks) out.insert(b->name);
  return out;
}

TEST(ConformWrittenParts, EveryHelperTheWriterNamesHasABlock) {
  // The names write_tests.cpp and the profiles' observe expressions use.
  std::set<std::string> missing;
  const auto blocks = blocks_for({"_assert_outcome", "_assert_outcome_in", "_load", "_import_adapter", "_new",
                                  "_record", "_ints", "_fields", "_tp_mapping", "_sender_plan", "_region",
                                  "FullAttentionSpec", "MLAAttentionSpec", "MambaSpec", "TPMapping"},
                                 missing);
  // The names a file defines itself, and Python's own.
  for (const auto& name : missing) {
    EXPECT_TRUE(name == "_FILES" || name == "_STAND_INS" || name == "pytest") << name;
  }
  const auto names = block_names(blocks);
  // What the helpers need comes with them: the loader's parts, the child's logger, a stand-in's bases.
  for (const char* needed : {"REFUSED", "MODEL", "_load_files", "_build", "_installed", "_LOADED", "_Logger",
                             "AttentionSpec", "KVCacheSpec", "_Record"}) {
    EXPECT_TRUE(names.count(needed)) << needed;
  }
  // The child's functions are not taken for a written part's locals.
  for (const char* child_function : {"record", "literal", "word", "bind", "main"}) {
    EXPECT_FALSE(names.count(child_function)) << child_function;
  }
}

TEST(ConformWrittenParts, NamesAndModulesOfCode) {
  EXPECT_EQ(names_in("x = obj.attr + f('a b', y)  # z c\n"), (std::set<std::string>{"x", "obj", "f", "y"}));
  EXPECT_EQ(names_in("s = \"\"\"doc q\"\"\"\nt = types . X"), (std::set<std::string>{"s", "t", "types"}));
  EXPECT_EQ(modules_used("def f(v):\n    return operator.index(v) + len(sys.argv)\n"),
            (std::set<std::string>{"operator", "sys"}));
  EXPECT_EQ(modules_used("spec = importlib.util.spec_from_file_location(n, p)"),
            (std::set<std::string>{"importlib.util"}));
}

TEST(ConformWrittenLiterals, PythonNotation) {
  EXPECT_EQ(python_string("TP sizes must be positive"), "'TP sizes must be positive'");
  EXPECT_EQ(python_string("it's"), "\"it's\"");
  EXPECT_EQ(python_string("a'b\"c\\d\n"), "'a\\'b\"c\\\\d\\n'");
  EXPECT_EQ(python_tuple({"1"}), "(1,)");
  EXPECT_EQ(python_tuple({"1", "[2]"}), "(1, [2])");
  EXPECT_EQ(python_list({}), "[]");
  const Expected raised = expected_outcome("ValueError: local_tp_rank 5 must be in [0, 4)");
  EXPECT_EQ(raised.form, Expected::Form::Raises);
  EXPECT_EQ(raised.exception_class, "ValueError");
  EXPECT_EQ(raised.message, "local_tp_rank 5 must be in [0, 4)");
  EXPECT_EQ(expected_outcome("[(0, 0, 1)]").literal, "[(0, 0, 1)]");
}

TEST(ConformWrittenFiles, NamesAndModules) {
  EXPECT_EQ(test_file_name("CommonKVManager._resolve_rank_mapping"),
            "test_conform_common_kv_manager_resolve_rank_mapping.py");
  EXPECT_EQ(test_file_name("compute_head_slice_params (as run)"), "test_conform_compute_head_slice_params.py");
  EXPECT_EQ(test_file_name("TransferTopology.tp_ratio"), "test_conform_transfer_topology_tp_ratio.py");
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("tpcheck_write_tests_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "pkg" / "sub");
  std::ofstream(root / "pkg" / "__init__.py");
  std::ofstream(root / "pkg" / "sub" / "__init__.py");
  std::ofstream(root / "pkg" / "sub" / "conn.py");
  std::ofstream(root / "loose.py");
  EXPECT_EQ(module_of_file((root / "pkg" / "sub" / "conn.py").string()), "pkg.sub.conn");
  EXPECT_EQ(module_of_file((root / "loose.py").string()), std::nullopt);
  fs::remove_all(root);
}

TEST(ConformWrittenCases, OutcomeClasses) {
  Binding b;
  b.params = {{"P", ParamKind::Size, {}}, {"D", ParamKind::Size, {}}, {"H", ParamKind::HeadCount, {"P", "D"}},
              {"MLA", ParamKind::Flag, {}}};
  const Expected value = expected_value("1");
  EXPECT_EQ(outcome_class(b, {2, 4, 8, 0}, value), "P < D, heads split");
  EXPECT_EQ(outcome_class(b, {4, 2, 2, 0}, value), "P > D, heads replicated");
  EXPECT_EQ(outcome_class(b, {2, 2, 1, 1}, value), "P = D, MLA");
  // Every instance of an error is one class, whatever its numbers.
  EXPECT_EQ(outcome_class(b, {2, 3, 1, 0}, expected_outcome("AssertionError: Remote tensor parallel size 3 is not "
                                                            "divisible by local tensor parallel size 2.")),
            outcome_class(b, {4, 6, 1, 0}, expected_outcome("AssertionError: Remote tensor parallel size 6 is not "
                                                             "divisible by local tensor parallel size 4.")));
  EXPECT_EQ(outcome_class(b, {0, 1, 1, 0}, expected_outcome("ValueError: local_tp_rank -1 must be in [0, 1)")),
            "ValueError: local_tp_rank N must be in [N, N)");
  EXPECT_EQ(outcome_class(b, {2, 3, 1, 0}, expected_refusal()), "refused");
  Binding ports;
  ports.params = {{"DP_RANK", ParamKind::Size, {}}, {"TP_RANK", ParamKind::Rank, {"TP_SIZE"}}};
  EXPECT_EQ(outcome_class(ports, {0, 0}, value), "value");
}

}  // namespace
}  // namespace tpcheck::conform
