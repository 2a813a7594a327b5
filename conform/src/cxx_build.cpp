#include "cxx_build.hpp"

#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "cxx_extract.hpp"
#include "embedded_files.hpp"
#include "tpcheck/conform/child_process.hpp"

namespace tpcheck::conform {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> find_program(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::vector<std::string> list;
  for (std::string dir; std::getline(dirs, dir, ':');) list.push_back(dir.empty() ? "." : dir);
  for (const auto& name : names) {
    if (name.find('/') != std::string::npos) {
      if (access(name.c_str(), X_OK) == 0) return name;
      continue;
    }
    for (const auto& dir : list) {
      const std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return std::nullopt;
}

// The compiler: $CXX, else the system's c++; --fuzz needs clang with libFuzzer.
std::optional<std::string> compiler(CxxTarget target) {
  if (target == CxxTarget::Fuzz) return find_program({"clang++-14", "clang++"});
  const char* cxx = std::getenv("CXX");
  if (cxx && *cxx) return find_program({cxx});
  return find_program({"c++", "g++", "clang++"});
}

std::string cache_root() {
  if (const char* dir = std::getenv("TPCHECK_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tpcheck";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tpcheck";
  return (fs::temp_directory_path() / ("tpcheck-cache-" + std::to_string(getuid()))).string();
}

std::string hash_of(const std::string& text) {
  boost::uuids::name_generator_sha1 generate(boost::uuids::ns::oid());
  return boost::uuids::to_string(generate(text.data(), text.size()));
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::string open_namespaces(const std::vector<std::string>& ns) {
  std::string out;
  for (const auto& n : ns) out += "namespace " + n + " { ";
  return out;
}
std::string close_namespaces(const std::vector<std::string>& ns) { return std::string(ns.size(), '}'); }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string member_declaration(const CxxDefinition& d) {
  std::string decl = d.text.substr(0, d.body_offset);
  const std::string qualified = d.class_name + "::" + d.simple_name;
  const auto at = decl.find(qualified);
  if (at != std::string::npos) decl.replace(at, qualified.size(), d.simple_name);
  while (!decl.empty() && (decl.back() == ' ' || decl.back() == '\n' || decl.back() == '\t')) decl.pop_back();
  return decl + ";";
}

void CxxSource::line(const std::string& text) {
  out_ += text + "\n";
  lines_ += 1 + static_cast<unsigned>(std::count(text.begin(), text.end(), '\n'));
}

void CxxSource::definition(const CxxDefinition& d) {
  line(open_namespaces(d.namespaces));
  line("#line " + std::to_string(d.line) + " " + quoted(d.file));
  out_ += d.text + "\n";
  lines_ += 1 + static_cast<unsigned>(std::count(d.text.begin(), d.text.end(), '\n'));
  line("#line " + std::to_string(lines_ + 2) + " \"tpcheck_generated.cpp\"");
  line(close_namespaces(d.namespaces));
}

bool CxxUnit::reads(std::initializer_list<const char*> identifiers) const {
  return std::any_of(chosen.begin(), chosen.end(), [&](const CxxDefinition* d) {
    return std::any_of(identifiers.begin(), identifiers.end(), [&](const char* n) { return contains(d->identifiers, n); });
  });
}

ProgramRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       std::chrono::seconds budget) {
  ProgramRun r;
  const auto started = std::chrono::steady_clock::now();
  ChildProcess child = ChildProcess::start(argv, {0, environment});
  if (!child.running()) {
    r.ended = child.error();
    return r;
  }
  std::string nothing, input;
  const auto deadline = ChildProcess::Clock::now() + budget;
  for (;;) {
    const auto pumped = child.pump(nothing, input, deadline);
    if (pumped == ChildProcess::Pump::Closed) break;
    if (pumped == ChildProcess::Pump::Deadline) {
      child.kill();
      r.ended = "took longer than " + std::to_string(budget.count()) + " s";
      r.output = child.stderr_tail();
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return r;
    }
  }
  r.output = child.stderr_tail();
  r.ended = child.end_description();
  r.ok = r.ended == "exited with status 0";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

std::optional<std::string> cxx_missing(CxxTarget target) {
  std::string why;
  if (!libclang_available(why)) return why;
  if (!compiler(target)) {
    return target == CxxTarget::Fuzz ? "--fuzz needs clang++ with libFuzzer (Debian: apt-get install clang-14 libclang-rt-14-dev)"
                                     : "no C++ compiler found ($CXX, c++, g++ or clang++; Debian: apt-get install g++)";
  }
  return std::nullopt;
}

namespace {

// Where a compiler's error line points: "FILE:LINE:COL: error: ..." or
// "FILE:LINE: error: ...".
std::optional<std::pair<std::string, unsigned>> error_place(const std::string& line) {
  static const std::regex place(R"(^(.*?):([0-9]{1,9}):(?:[0-9]{1,9}:)? (?:fatal )?error:)");
  std::smatch m;
  if (!std::regex_search(line, m, place)) return std::nullopt;
  return std::make_pair(m[1].str(), static_cast<unsigned>(std::stoul(m[2].str())));
}

// The definition whose text holds that place, or none (the stub's or the driver's).
const CxxDefinition* definition_at(const std::vector<CxxScan>& scans, const std::string& file, unsigned line) {
  for (const auto& s : scans) {
    for (const auto& d : s.definitions) {
      const auto lines = static_cast<unsigned>(std::count(d.text.begin(), d.text.end(), '\n'));
      if (d.file == file && d.line <= line && line <= d.line + lines) return &d;
    }
  }
  return nullptr;
}

// The compiler's first error, or what ended it.
std::string first_error(const ProgramRun& compiled, const std::string& cxx) {
  std::stringstream lines(compiled.output);
  for (std::string l; std::getline(lines, l);) {
    if (l.find("error:") != std::string::npos) return l;
  }
  return cxx + " " + compiled.ended;
}

// Compiles `source` (or finds it in the cache: a program, or the first error
// of an earlier attempt), nullopt and the compiler's first error otherwise.
std::optional<CxxBuild> compile(CxxTarget target, const std::string& source, CxxBuild build,
                                std::chrono::steady_clock::time_point started, std::string& error) {
  const std::string cxx = *compiler(target);
  std::vector<std::string> flags = {"-std=c++20", "-w"};
  if (target == CxxTarget::Fuzz) {
    flags.insert(flags.end(), {"-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all"});
  } else {
    flags.insert(flags.end(), {"-O1"});
  }
  // The cache key: every byte that goes into the program, and the compiler.
  std::string key = cxx + "\n";
  for (const auto& f : flags) key += f + "\n";
  for (std::size_t i = 0; i < kCxxFileCount; ++i) key += std::string(kCxxFiles[i].name) + "\n" + kCxxFiles[i].text;
  key += source;
  std::error_code ec;
  key += std::to_string(fs::last_write_time(cxx, ec).time_since_epoch().count());
  const fs::path dir = fs::path(cache_root()) / "conform-cxx" / hash_of(key);
  const fs::path program = dir / (target == CxxTarget::Fuzz ? "fuzz" : "child");
  build.executable = program.string();
  const fs::path failed = dir.string() + ".error";  // an earlier attempt's first error
  if (std::ifstream known(failed); known && std::getline(known, error) && !error.empty()) return std::nullopt;
  if (access(program.c_str(), X_OK) == 0) {
    build.cached = true;
    build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return build;
  }
  // Built in a directory of its own, renamed into place when complete.
  fs::create_directories(dir.parent_path(), ec);
  const fs::path work_dir = dir.string() + ".tmp" + std::to_string(getpid());
  fs::remove_all(work_dir, ec);
  fs::create_directories(work_dir, ec);
  if (ec) {
    error = "cannot create " + work_dir.string() + ": " + ec.message();
    return std::nullopt;
  }
  for (std::size_t i = 0; i < kCxxFileCount; ++i) {
    std::ofstream(work_dir / kCxxFiles[i].name, std::ios::binary) << kCxxFiles[i].text;
  }
  std::ofstream(work_dir / "tpcheck_generated.cpp", std::ios::binary) << source;
  std::vector<std::string> argv = {cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-I", work_dir.string(), "-o", (work_dir / program.filename()).string(),
                           (work_dir / "tpcheck_generated.cpp").string()});
  const ProgramRun compiled = run_program(argv, {}, std::chrono::seconds(300));
  if (!compiled.ok) {
    fs::remove_all(work_dir, ec);
    error = first_error(compiled, cxx);
    // The same source fails the same way: kept, unless the compiler was cut short.
    if (compiled.ended.rfind("exited with status", 0) == 0) {
      const fs::path partial = failed.string() + ".tmp" + std::to_string(getpid());
      if (std::ofstream(partial, std::ios::binary) << error << "\n") fs::rename(partial, failed, ec);
    }
    return std::nullopt;
  }
  fs::rename(work_dir, dir, ec);
  if (ec) fs::remove_all(work_dir, ec);  // another run built it meanwhile
  build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return build;
}


}  // namespace

std::optional<CxxBuild> build_cxx(const CxxChild& child, CxxTarget target, const std::vector<std::string>& files,
                                  const std::vector<Binding>& bindings, std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  if (auto missing = cxx_missing(target)) {
    error = "the C++ functions cannot be checked on this machine: " + *missing;
    return std::nullopt;
  }
  std::vector<CxxScan> scans;
  for (const auto& f : files) {
    auto scan = scan_cxx_file(f, error);
    if (!scan) return std::nullopt;
    scans.push_back(std::move(*scan));
  }
  std::map<std::string, const CxxDefinition*> by_name;  // the first definition of each name
  std::map<std::string, const CxxDefinition*> by_simple_name;
  for (const auto& s : scans) {
    for (const auto& d : s.definitions) {
      by_name.emplace(d.name, &d);
      if (d.class_name.empty()) by_simple_name.emplace(d.simple_name, &d);
    }
  }
  if (!by_name.count(child.driver_function)) {
    error = child.missing_driver;
    return std::nullopt;
  }
  // The definitions some roots need: the roots, and (transitively) the
  // functions of the files they call.
  auto needed_by = [&](const std::vector<std::string>& roots) {
    std::set<const CxxDefinition*> taken;
    std::vector<const CxxDefinition*> work;
    auto want = [&](const CxxDefinition* d) {
      if (d && taken.insert(d).second) work.push_back(d);
    };
    for (const auto& r : roots) want(by_name.count(r) ? by_name.at(r) : nullptr);
    while (!work.empty()) {
      const CxxDefinition* d = work.back();
      work.pop_back();
      for (const auto& id : d->identifiers) {
        if (id == d->simple_name || child.stub_names.count(id)) continue;
        if (auto it = by_simple_name.find(id); it != by_simple_name.end()) want(it->second);
        if (!d->class_name.empty()) {
          if (auto it = by_name.find(d->class_name + "::" + id); it != by_name.end()) want(it->second);
        }
      }
    }
    return taken;
  };
  auto function_of = [](const Binding& b) { return b.call.functions.empty() ? b.name : b.call.functions.front(); };
  // A function that does not build against the stub (it calls what the given
  // files do not define, or reads what the stub does not declare) is left
  // out with the compiler's first error, and the others are built without
  // it; the function every driver calls cannot be left out.
  std::map<std::string, std::string> left_out;  // function -> why
  for (;;) {
    std::vector<std::string> roots(child.helpers.begin(), child.helpers.end());
    for (const auto& b : bindings) {
      if (!left_out.count(function_of(b))) roots.push_back(function_of(b));
    }
    const std::set<const CxxDefinition*> taken = needed_by(roots);
    std::vector<const CxxDefinition*> chosen;  // in file order, files in the order given
    for (const auto& s : scans) {
      for (const auto& d : s.definitions) {
        if (taken.count(&d)) chosen.push_back(&d);
      }
    }
    const CxxUnit unit{chosen, scans,
                       [&](const std::string& name) -> const CxxDefinition* {
                         const auto d = by_name.find(name);
                         return d != by_name.end() && taken.count(d->second) && !left_out.count(name) ? d->second
                                                                                                       : nullptr;
                       },
                       [&](const std::string& name) {
                         const auto why = left_out.find(name);
                         return why != left_out.end() ? why->second : "no definition of " + name + " in the given files";
                       }};
    CxxBuild build;
    std::string compile_error;
    const auto built = compile(target, child.source(unit, bindings, target, build.note), build, started, compile_error);
    if (built) return built;
    const auto place = error_place(compile_error);
    const CxxDefinition* culprit = place ? definition_at(scans, place->first, place->second) : nullptr;
    std::vector<std::string> dropped;
    for (const auto& b : bindings) {
      const std::string f = function_of(b);
      if (culprit && !left_out.count(f) && needed_by({f}).count(culprit)) dropped.push_back(f);
    }
    const bool essential = !culprit || needed_by({child.driver_function}).count(culprit) ||
                           std::any_of(child.helpers.begin(), child.helpers.end(), [&](const std::string& h) {
                             return needed_by({h}).count(culprit) > 0;
                           });
    if (essential || dropped.empty()) {
      error = "the C++ functions do not build: " + compile_error;
      return std::nullopt;
    }
    for (const auto& f : dropped) left_out[f] = "does not build against tpcheck's stub: " + compile_error;
  }
}

}  // namespace tpcheck::conform
