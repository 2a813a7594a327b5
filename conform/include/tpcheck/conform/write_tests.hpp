// The test files tpcheck conform --write-tests writes: one per checked Python
// function, in its engine's conventions (written.hpp's TestConventions),
// each a table of the cases selection.hpp chose with the model's outcome of
// every call, and the calls as the child makes them (the child's describe
// answer, conform/child/28_written.py), with the helpers of conform/written/
// and the engine's written/ parts, and, with --import-style source, a loader
// that takes the definitions out of the given files by their syntax tree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/selection.hpp"
#include "tpcheck/conform/written.hpp"

namespace tpcheck::conform {

enum class ImportStyle { Module, Source };

// One binding's part of a file: its table, its calls, and where its names live.
struct TestSection {
  std::string binding;   // as the profile names it: "compute_head_slice_params (as run)"
  std::string function;  // the file's: the binding's name without its qualifier
  std::string qualifier;  // "as run", or empty
  std::string found;     // the definition bound: "TpKVTopology.get_target_remote_ranks"
  std::string compared_with;
  bool informational = false;  // its deviations are notes: written as expected failures
  std::vector<std::string> params;  // the row's: the case's parameters, then the call's coordinates
  std::vector<std::size_t> flags;   // which of them are written True/False
  std::vector<std::pair<std::string, std::string>> definitions;  // name, the file that defines it
  std::vector<std::string> expression_stand_ins;  // engine names the calls name
  std::vector<std::string> code_stand_ins;        // engine names the code under test needs (source style)
  std::vector<std::string> body;                  // the observed function's lines, then `return <observe>`
  struct Row {
    std::vector<std::string> values;  // Python literals of the params
    Expected expected;
    std::string outcome_class;
    std::string deviation;  // what the code as it is does wrong here, in a line; empty: it conforms
  };
  std::vector<Row> rows;
  // What a case that fails in each way does to a deployment, by deviation
  // kind (wrong_value, too_many, too_few, accepts_invalid, rejects_valid,
  // wrong_error): the message of a case the code as it is passes.
  std::vector<std::pair<std::string, std::string>> meanings;
  std::uint64_t grid_cases = 0;
  std::size_t mutants = 0, killed = 0, kept_cases = 0;
};

// The describe answer parsed into `section` (its definitions, stand-ins,
// coordinates, result names and body); false with `error` on garbage.
bool read_description(const std::string& text, TestSection& section, std::vector<std::string>& coords,
                      std::string& error);

// The section of binding `b` (bound as `found`): the rows of the cases `sel`
// kept, each marked with what the code as it is does wrong there, and its
// calls as the child's `description` says them; nullopt and `problem` when
// they cannot be written.
std::optional<TestSection> make_section(const Binding& b, const Selection& sel, const std::vector<GridCase>& cases,
                                        std::uint64_t grid_cases, const std::string& found,
                                        const std::string& description, const std::vector<KindInfo>& kinds,
                                        std::string& problem);

struct WrittenFile {
  std::string name;  // test_conform_<function>.py
  std::string text;  // or, when it cannot be written, empty and `problem` says why
  std::string problem;
  std::size_t cases = 0, deviations = 0;
};

struct WriteOptions {
  std::string profile;  // empty with an adapter
  bool adapter = false;
  bool hybrid = false;  // --hybrid: the calls are a hybrid model's
  ImportStyle style = ImportStyle::Module;
  std::string dir;  // where the files go: the given files' paths are written relative to it
  std::vector<std::string> files;  // the Python files of the run
  GridBounds bounds;
  const TestConventions* conventions = nullptr;
};

// The files of the sections, one per function, in the order of their first section.
std::vector<WrittenFile> test_files(const std::vector<TestSection>& sections, const WriteOptions& options);

// The file a binding's tests go to: test_conform_<function>.py, the
// function's name without the qualifier of a second way to call it.
std::string test_file_name(const std::string& binding);

// Problems with DIR found before the run: missing, not a directory, not
// writable; without `force`, a file there that one of `bindings` would write.
std::optional<std::string> check_test_dir(const std::string& dir, const std::vector<Binding>& bindings = {},
                                          bool force = true);

// Writes the files into `dir`, each through a temporary file there and a
// rename; an existing file is refused unless `force`. Nothing is written when
// one is refused. nullopt, or the one line that says what went wrong.
std::optional<std::string> write_test_files(const std::string& dir, const std::vector<WrittenFile>& files, bool force);

// The module a given file is, when it lies in a package (its directories up
// from it hold __init__.py): "vllm.distributed.kv_transfer.kv_connector.utils".
std::optional<std::string> module_of_file(const std::string& path);

}  // namespace tpcheck::conform
