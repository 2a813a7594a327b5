// --mutants' table and --write-tests' list of files (report.hpp).
#include <iomanip>
#include <sstream>

#include "tpcheck/conform/report.hpp"

namespace tpcheck::conform {

void print_mutants(std::ostream& out, const RunReport& report) {
  struct Line {
    std::string name, grid, kept, mutants, by_grid, by_kept, seconds;
  };
  std::vector<Line> lines = {{"function", "grid cases", "kept", "mutants", "killed by grid", "killed by kept", "seconds"}};
  std::vector<std::string> others;
  for (const auto& f : report.functions) {
    if (!f.checked) continue;
    if (!f.selection) {
      if (!f.not_written.empty()) others.push_back(f.name + ": " + f.not_written);
      continue;
    }
    const Selection& s = *f.selection;
    std::ostringstream seconds;
    seconds << std::fixed << std::setprecision(1) << s.seconds;
    lines.push_back({f.name, std::to_string(f.cases), std::to_string(s.kept.size()), std::to_string(s.mutants),
                     std::to_string(s.killed_by_grid), std::to_string(s.killed_by_kept), seconds.str()});
    if (!f.not_written.empty()) others.push_back(f.name + ": " + f.not_written);
  }
  std::size_t width = 0;
  for (const auto& l : lines) width = std::max(width, l.name.size());
  out << "\nmutants: the cases kept for each function's tests\n";
  for (const auto& l : lines) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << l.name << std::right;
    for (const auto& [value, column] : {std::pair{l.grid, 10}, std::pair{l.kept, 5}, std::pair{l.mutants, 8},
                                        std::pair{l.by_grid, 15}, std::pair{l.by_kept, 15}, std::pair{l.seconds, 8}}) {
      out << "  " << std::setw(column) << value;
    }
    out << "\n";
  }
  for (const auto& f : report.functions) {
    if (!f.selection) continue;
    for (const auto& note : f.selection->notes) out << "  " << note << "\n";
  }
  for (const auto& o : others) out << "  not written: " << o << "\n";
}

void print_written(std::ostream& out, const std::string& dir, const std::vector<WrittenFile>& files) {
  out << "\n";
  for (const auto& f : files) {
    if (!f.problem.empty()) {
      out << "tests: " << f.name << ": " << f.problem << "\n";
      continue;
    }
    std::string path = dir;
    if (!path.empty() && path.back() != '/') path += '/';
    out << "tests: wrote " << path << f.name << ": " << f.cases << (f.cases == 1 ? " case" : " cases");
    if (f.deviations) out << ", " << f.deviations << " failing on the code as it is (its deviations)";
    out << "\n";
  }
}

}  // namespace tpcheck::conform
