#include "tpcheck/conform/regression.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tpcheck/operations.hpp"

namespace tpcheck::conform {

extern const char* const kBuiltinRegressionCalls;  // embedded.cpp, generated

namespace {

// Each line is parsed by the same parser as `tpcheck eval` (parse_call_line).
bool parse_calls(std::istream& in, const std::string& name, std::vector<ModelCall>& calls, std::string& error) {
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string code = line.substr(0, line.find('#'));
    if (code.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = name + ":" + std::to_string(number);
    auto parsed = parse_call_line(code);
    if (auto* problem = std::get_if<std::string>(&parsed)) {
      error = where + ": " + *problem;
      return false;
    }
    Call& call = std::get<Call>(parsed);
    calls.push_back({std::string(operation_infos()[call.op].name), std::move(call.args), where});
  }
  return true;
}

}  // namespace

bool load_regression_calls(const std::vector<std::string>& paths, std::vector<ModelCall>& calls, std::string& error) {
  std::istringstream builtin(kBuiltinRegressionCalls);
  if (!parse_calls(builtin, "<built-in regression_calls.txt>", calls, error)) return false;
  namespace fs = std::filesystem;
  for (const auto& path : paths) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
    } else {
      files.emplace_back(path);
    }
    for (const auto& f : files) {
      std::ifstream in(f);
      if (!in) {
        error = "cannot read corpus file " + f.string();
        return false;
      }
      if (!parse_calls(in, f.string(), calls, error)) return false;
    }
  }
  return true;
}

}  // namespace tpcheck::conform
