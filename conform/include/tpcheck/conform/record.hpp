// --record and --baseline files: every case's outcome, one line each, in grid
// order, grouped by function, so a later run can be diffed in lockstep.
//
//   # tpcheck conform record v2
//   # <grid signature: profile or adapter, bounds, corpus>
//   # bindings <the child's load request: how each function was found and called>
//   @ <function name>
//   <arg>,<arg>,...<TAB><escaped outcome>
#pragma once

#include <fstream>
#include <map>
#include <optional>
#include <string>

namespace tpcheck::conform {

// Writes to a temporary file beside the target and renames it over the target
// on commit(), so an interrupted run never leaves a half-written record.
class RecordWriter {
 public:
  // `bindings`: one line of JSON (the child's load request).
  bool open(const std::string& path, const std::string& signature, const std::string& bindings, std::string& error);
  void begin_function(const std::string& name);
  void add(const std::string& args, const std::string& outcome);
  bool commit(std::string& error);
  ~RecordWriter();  // removes the temporary file if not committed

 private:
  std::string path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Reads a record; each function's lines are then read in order.
class BaselineReader {
 public:
  bool open(const std::string& path, const std::string& signature, std::string& error);
  bool has_function(const std::string& name) const { return sections_.count(name) != 0; }
  const std::map<std::string, std::streampos>& sections() const { return sections_; }
  // Positions the reader at the function's first case.
  void begin_function(const std::string& name);
  // The next case of the current function: false at its end; on a malformed
  // line sets `error`.
  bool next(std::string& args, std::string& outcome, std::string& error);

 private:
  std::string path_;
  std::ifstream in_;
  std::map<std::string, std::streampos> sections_;
};

std::string escape_outcome(const std::string& text);
std::string unescape_outcome(const std::string& text);

}  // namespace tpcheck::conform
