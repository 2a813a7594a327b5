#include "tpcheck/conform/record.hpp"

#include <cstdio>
#include <unistd.h>

namespace tpcheck::conform {
namespace {
constexpr const char* kMagic = "# tpcheck conform record v2";
}

std::string escape_outcome(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out;
}

std::string unescape_outcome(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    out += c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
  }
  return out;
}

bool RecordWriter::open(const std::string& path, const std::string& signature, const std::string& bindings,
                        std::string& error) {
  path_ = path;
  temp_ = path + ".tmp." + std::to_string(getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    error = "cannot write " + temp_ + " (for --record " + path + ")";
    return false;
  }
  out_ << kMagic << "\n# " << signature << "\n# bindings " << bindings << "\n";
  return true;
}

void RecordWriter::begin_function(const std::string& name) { out_ << "@ " << name << "\n"; }

void RecordWriter::add(const std::string& args, const std::string& outcome) {
  out_ << args << '\t' << escape_outcome(outcome) << '\n';
}

bool RecordWriter::commit(std::string& error) {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    error = "cannot write --record " + path_;
    std::remove(temp_.c_str());
    return false;
  }
  committed_ = true;
  return true;
}

RecordWriter::~RecordWriter() {
  if (!temp_.empty() && !committed_) {
    out_.close();
    std::remove(temp_.c_str());
  }
}

bool BaselineReader::open(const std::string& path, const std::string& signature, std::string& error) {
  path_ = path;
  in_.open(path, std::ios::binary);
  std::string magic, sig;
  if (!in_ || !std::getline(in_, magic) || magic != kMagic || !std::getline(in_, sig)) {
    error = "--baseline " + path + " is not a tpcheck conform record";
    return false;
  }
  if (sig != "# " + signature) {
    error = "--baseline " + path + " was recorded for a different grid ('" + sig.substr(sig.size() > 2 ? 2 : 0) +
            "'; this run is '" + signature + "'): record it again with the same options";
    return false;
  }
  std::string line;
  for (std::streampos at = in_.tellg(); std::getline(in_, line); at = in_.tellg()) {
    if (line.compare(0, 2, "@ ") == 0) sections_[line.substr(2)] = in_.tellg();
    (void)at;
  }
  in_.clear();
  return true;
}

void BaselineReader::begin_function(const std::string& name) {
  in_.clear();
  in_.seekg(sections_.at(name));
}

bool BaselineReader::next(std::string& args, std::string& outcome, std::string& error) {
  std::string line;
  if (!std::getline(in_, line) || line.compare(0, 2, "@ ") == 0) return false;
  const auto tab = line.find('\t');
  if (tab == std::string::npos) {
    error = "--baseline " + path_ + ": malformed line '" + line.substr(0, 100) + "'";
    return false;
  }
  args = line.substr(0, tab);
  outcome = unescape_outcome(line.substr(tab + 1));
  return true;
}

}  // namespace tpcheck::conform
