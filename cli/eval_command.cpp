// `tpcheck eval OP ARGS...` and `tpcheck eval --batch`: one model outcome per
// call or per input line, in Python's notation.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::cli {
namespace {

void print_operations(std::ostream& out) {
  out << "operations:\n";
  for (const auto& info : operation_infos()) {
    out << "  " << info.name;
    for (const Param& p : info.params) out << " " << p.name;
    out << "\n";
  }
}

// Every line gets one output line, in order; a line that is not a valid call
// prints "UsageError: ..." in its place and makes the exit status 2, so a
// caller reading line by line never falls out of step.
int run_batch(ModelType type) {
  int status = 0;
  std::string line, text;  // one buffer for every line's outcome
  while (std::getline(std::cin, line)) {
    if (evaluate_line(line, type, text)) {
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
    "usage: tpcheck eval [--model int16|int64|cpp_int] OP ARGS...\n"
    "       tpcheck eval [--model int16|int64|cpp_int] --batch < lines\n"
    "  Without --model the model runs in int64 when every argument fits, in cpp_int otherwise.\n";

int eval_command(const std::vector<std::string>& all_args) {
  std::vector<std::string> args = all_args;
  ModelType type = ModelType::Auto;
  if (!args.empty() && args[0] == "--model") {
    const std::optional<ModelType> named = args.size() > 1 ? model_type_named(args[1]) : std::nullopt;
    if (!named) {
      std::cerr << "tpcheck eval: --model expects int16, int64 or cpp_int\n";
      return 2;
    }
    type = *named;
    args.erase(args.begin(), args.begin() + 2);
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
    return run_batch(type);
  }
  const std::vector<std::string_view> words(args.begin() + 1, args.end());
  std::string text;
  if (!evaluate(args[0], words, type, text)) {
    std::cerr << "tpcheck eval: " << text << "\n";
    return 2;
  }
  std::cout << text << "\n";
  return 0;
}

}  // namespace tpcheck::cli
