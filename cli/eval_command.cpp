// `tpcheck eval OP ARGS...` and `tpcheck eval --batch`: one model outcome per
// call or per input line, in Python's notation.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::cli {
namespace {

void print_operations(std::ostream& out) {
  out << "operations:\n";
  for (std::size_t op = 0; op < operation_infos().size(); ++op) out << "  " << usage_line(op) << "\n";
}

// Every line gets one output line, in order; a line that is not a valid call
// prints "UsageError: ..." in its place and makes the exit status 2, so a
// caller reading line by line never falls out of step.
int run_batch(ModelType type, const StageOptions& stages) {
  int status = 0;
  std::string line, text;  // one buffer for every line's outcome
  while (std::getline(std::cin, line)) {
    if (evaluate_line(line, type, text, stages)) {
      std::cout << text << "\n";
    } else {
      std::cout << "UsageError: " << text << "\n";
      status = 2;
    }
  }
  std::cout.flush();
  return status;
}

}  // namespace

constexpr const char* kEvalUsage =
    "usage: tpcheck eval [--model int16|int64|cpp_int] [STAGES] OP ARGS...\n"
    "       tpcheck eval [--model int16|int64|cpp_int] [STAGES] --batch < lines\n"
    "  Without --model the model runs in int64 when every argument fits, in cpp_int otherwise.\n"
    "  STAGES, for the operations that list them: --prefill-pp-layers a,b,... and --decode-pp-layers\n"
    "  a,b,... (the layers of each pipeline stage; a side without one is one stage of the other\n"
    "  side's layers, or of one layer), --prefill-adp and --decode-adp (attention DP). They may\n"
    "  come anywhere among the arguments.\n";

namespace {

// Takes the eval options out of `args` (anywhere among them), into `type`
// and `stages`; a one-line error for a bad one.
std::optional<std::string> take_options(std::vector<std::string>& args, ModelType& type, StageOptions& stages) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--prefill-adp" || a == "--decode-adp") {
      (a == "--prefill-adp" ? stages.prefill_adp : stages.decode_adp) = true;
      continue;
    }
    if (a == "--model") {
      const std::optional<ModelType> named = i + 1 < args.size() ? model_type_named(args[i + 1]) : std::nullopt;
      if (!named) return "--model expects int16, int64 or cpp_int";
      type = *named;
      ++i;
      continue;
    }
    if (a == "--prefill-pp-layers" || a == "--decode-pp-layers") {
      if (i + 1 == args.size()) return a + " needs a value";
      auto& target = a == "--prefill-pp-layers" ? stages.prefill_layers : stages.decode_layers;
      if (target) return a + " given twice";
      auto parsed = parse_layer_list(a, args[++i]);
      if (const auto* error = std::get_if<OptionError>(&parsed)) return error->str();
      target.emplace();
      for (const std::int64_t count : std::get<std::vector<std::int64_t>>(parsed)) target->emplace_back(count);
      continue;
    }
    rest.push_back(a);
  }
  args = std::move(rest);
  return std::nullopt;
}

}  // namespace

int eval_command(const std::vector<std::string>& all_args) {
  std::vector<std::string> args = all_args;
  ModelType type = ModelType::Auto;
  StageOptions stages;
  if (const auto error = take_options(args, type, stages)) {
    std::cerr << "tpcheck eval: " << *error << "\n";
    return 2;
  }
  if (args.empty()) {
    std::cerr << "tpcheck eval: expected OP ARGS... or --batch (see tpcheck eval --help)\n";
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << kEvalUsage;
    print_operations(std::cout);
    return 0;
  }
  if (args[0] == "--batch") {
    if (args.size() != 1) {
      std::cerr << "tpcheck eval: --batch takes no further arguments\n";
      return 2;
    }
    return run_batch(type, stages);
  }
  const std::vector<std::string_view> words(args.begin() + 1, args.end());
  std::string text;
  if (!evaluate(args[0], words, type, text, stages)) {
    std::cerr << "tpcheck eval: " << text << "\n";
    return 2;
  }
  std::cout << text << "\n";
  return 0;
}

}  // namespace tpcheck::cli
