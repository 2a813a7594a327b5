// Case enumeration. Parameters are known by their model names: sizes first,
// then each rank against the size it indexes, so ranks can straddle their range.
#include "tpcheck/conform/grid.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tpcheck/operations.hpp"

namespace tpcheck::conform {

extern const char* const kBuiltinRegressionCalls;  // regression_calls.cpp, generated

namespace {

// The size parameter a rank parameter indexes, if it is one.
std::optional<std::string> size_of_rank(const std::string& param) {
  if (param == "r") return "L";
  if (param == "p") return "P";
  if (param == "d") return "D";
  if (param == "q") return "T";
  if (param == "TP_RANK") return "TP_SIZE";
  return std::nullopt;
}

struct Layout {
  std::vector<std::size_t> order;        // sizes and free parameters first, then ranks
  std::vector<std::ptrdiff_t> size_at;   // per parameter: index of its size, or -1
  std::vector<BigInt> upper;             // per parameter: the grid's upper bound
};

Layout layout_of(const std::vector<std::string>& params, const GridBounds& b) {
  Layout l;
  l.size_at.assign(params.size(), -1);
  for (std::size_t i = 0; i < params.size(); ++i) {
    l.upper.emplace_back(params[i] == "H" ? b.max_heads : params[i] == "MLA" ? 1 : b.max_tp);
    if (auto s = size_of_rank(params[i])) {
      const auto it = std::find(params.begin(), params.end(), *s);
      if (it != params.end()) l.size_at[i] = it - params.begin();
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      if ((l.size_at[i] >= 0) == (pass == 1)) l.order.push_back(i);
    }
  }
  return l;
}

std::vector<BigInt> far_out_values() {
  const BigInt two63 = BigInt(1) << 63;
  const BigInt ten30 = BigInt("1000000000000000000000000000000");
  return {two63 - 1, two63, -two63, -two63 - 1, BigInt(1) << 64, ten30, -ten30};
}

void enumerate(const std::vector<std::string>& params, const Layout& l, std::size_t depth, CaseArgs& current,
               const std::function<std::vector<BigInt>(std::size_t, const CaseArgs&)>& domain,
               const std::function<void(const CaseArgs&)>& visit) {
  if (depth == l.order.size()) {
    visit(current);
    return;
  }
  const std::size_t i = l.order[depth];
  for (const BigInt& v : domain(i, current)) {
    current[i] = v;
    enumerate(params, l, depth + 1, current, domain, visit);
  }
}

std::vector<BigInt> range(const BigInt& lo, const BigInt& hi) {
  std::vector<BigInt> out;
  for (BigInt v = lo; v <= hi; ++v) out.push_back(v);
  return out;
}

}  // namespace

void for_each_grid_case(const std::vector<std::string>& params, const GridBounds& bounds,
                        const std::function<void(const CaseArgs&)>& visit) {
  const Layout l = layout_of(params, bounds);
  CaseArgs current(params.size());
  // 1. the exhaustive small grid
  enumerate(params, l, 0, current,
            [&](std::size_t i, const CaseArgs& c) {
              if (params[i] == "MLA") return range(0, 1);
              if (l.size_at[i] >= 0) return range(-1, std::max(c[l.size_at[i]], BigInt(0)));
              return range(-1, l.upper[i]);
            },
            visit);
  // 2. far-out values mixed with small ones
  const std::vector<BigInt> small = {-2, -1, 0, 1, 2, 3, 4, 6, 8};
  const std::vector<BigInt> far = far_out_values();
  enumerate(params, l, 0, current,
            [&](std::size_t i, const CaseArgs& c) {
              if (params[i] == "MLA") return range(0, 1);
              std::set<BigInt> values(small.begin(), small.end());
              values.insert(far.begin(), far.end());
              if (l.size_at[i] >= 0) {
                const BigInt& s = c[l.size_at[i]];
                values.insert({s - 1, s, s / 2});
              }
              return std::vector<BigInt>(values.begin(), values.end());
            },
            [&](const CaseArgs& c) {
              for (std::size_t i = 0; i < c.size(); ++i) {
                if (c[i] < -1 || c[i] > l.upper[i]) return visit(c);
              }
            });
}

bool in_small_grid(const std::vector<std::string>& params, const GridBounds& bounds, const CaseArgs& args) {
  const Layout l = layout_of(params, bounds);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const BigInt upper = l.size_at[i] >= 0 ? std::max(args[l.size_at[i]], BigInt(0)) : l.upper[i];
    if (params[i] == "MLA" ? (args[i] < 0) : (args[i] < -1)) return false;
    if (args[i] > upper) return false;
  }
  return true;
}

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
