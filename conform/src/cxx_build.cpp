#include "cxx_build.hpp"

#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include "cxx_extract.hpp"
#include "embedded_cxx.hpp"
#include "tpcheck/conform/child_process.hpp"

namespace tpcheck::conform {

namespace {

namespace fs = std::filesystem;

// Functions the drivers call besides the bindings' own, when the files define them.
const std::vector<std::string> kHelpers = {"isPowerOfTwo"};
// Namespaces the stub declares: a using-directive naming another is left out.
const std::set<std::string> kStubNamespaces = {
    "tensorrt_llm", "tensorrt_llm::common", "tensorrt_llm::runtime", "tensorrt_llm::mpi", "tensorrt_llm::executor",
    "tensorrt_llm::executor::kv_cache", "tensorrt_llm::batch_manager", "tensorrt_llm::batch_manager::kv_cache_manager",
    "common", "runtime", "mpi", "executor", "kv_cache", "executor::kv_cache", "batch_manager", "kv_cache_manager",
    "batch_manager::kv_cache_manager"};
// Names the stub provides: a definition of one in the files is not pulled in as a dependency.
const std::set<std::string> kStubNames = {"CacheState", "TargetRanksInfo", "MpiComm", "world", "getRank"};

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

// The TargetRanksInfo the code reads (trtllm_stub.hpp's layouts).
int target_ranks_layout(const std::vector<const CxxDefinition*>& chosen, std::string& note) {
  bool cp = false, dup = false, attention_layers = false, layers = false;
  for (const auto* d : chosen) {
    cp = cp || contains(d->identifiers, "mDomainCPSize");
    dup = dup || contains(d->identifiers, "mDupHeadFactor") || contains(d->identifiers, "mPeerDupHeadFactor");
    attention_layers = attention_layers || contains(d->identifiers, "mPeerAttentionLayerNumInDomainPP");
    layers = layers || contains(d->identifiers, "mPeerLayerNumInDomainPP");
  }
  if (attention_layers) {
    note = "TargetRanksInfo with mDomainCPSize and mPeerAttentionLayerNumInDomainPP";
    return 3;
  }
  if (cp || layers) {
    note = "TargetRanksInfo with mDomainCPSize and mPeerLayerNumInDomainPP";
    return 4;
  }
  if (dup) {
    note = "TargetRanksInfo with the duplicate-head factors, without mDomainCPSize";
    return 2;
  }
  note = "the oldest TargetRanksInfo {mDomainPPSize, mDomainTPSize, mIRanks}";
  return 1;
}

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

// The member's declaration inside its class: the definition up to its body,
// without the class qualification of its name.
std::string member_declaration(const CxxDefinition& d) {
  std::string decl = d.text.substr(0, d.body_offset);
  const std::string qualified = d.class_name + "::" + d.simple_name;
  const auto at = decl.find(qualified);
  if (at != std::string::npos) decl.replace(at, qualified.size(), d.simple_name);
  while (!decl.empty() && (decl.back() == ' ' || decl.back() == '\n' || decl.back() == '\t')) decl.pop_back();
  return decl + ";";
}

struct Generated {
  std::string source;
  std::string layout;
};

class Generator {
 public:
  void line(const std::string& text) {
    out_ += text + "\n";
    lines_ += 1 + static_cast<unsigned>(std::count(text.begin(), text.end(), '\n'));
  }
  void definition(const CxxDefinition& d) {
    line(open_namespaces(d.namespaces));
    line("#line " + std::to_string(d.line) + " " + quoted(d.file));
    out_ += d.text + "\n";
    lines_ += 1 + static_cast<unsigned>(std::count(d.text.begin(), d.text.end(), '\n'));
    line("#line " + std::to_string(lines_ + 2) + " \"tpcheck_generated.cpp\"");
    line(close_namespaces(d.namespaces));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  unsigned lines_ = 0;
};

}  // namespace

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

std::optional<CxxBuild> build_cxx(CxxTarget target, const std::vector<std::string>& files,
                                  const std::vector<Binding>& bindings, std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  if (auto missing = cxx_missing(target)) {
    error = "the C++ functions cannot be checked on this machine: " + *missing;
    return std::nullopt;
  }
  // Every definition of every file, then the ones the bindings name, their
  // helpers, and (transitively) the functions of the files they call.
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
  std::vector<const CxxDefinition*> chosen;
  std::set<const CxxDefinition*> taken;
  std::vector<const CxxDefinition*> work;
  auto want = [&](const CxxDefinition* d) {
    if (d && taken.insert(d).second) work.push_back(d);
  };
  for (const auto& b : bindings) {
    for (const auto& f : b.call.functions) want(by_name.count(f) ? by_name.at(f) : nullptr);
  }
  for (const auto& h : kHelpers) want(by_name.count(h) ? by_name.at(h) : nullptr);
  while (!work.empty()) {
    const CxxDefinition* d = work.back();
    work.pop_back();
    for (const auto& id : d->identifiers) {
      if (id == d->simple_name || kStubNames.count(id)) continue;
      if (auto it = by_simple_name.find(id); it != by_simple_name.end()) want(it->second);
      if (!d->class_name.empty()) {
        if (auto it = by_name.find(d->class_name + "::" + id); it != by_name.end()) want(it->second);
      }
    }
  }
  // In file order, files in the order given.
  for (const auto& s : scans) {
    for (const auto& d : s.definitions) {
      if (taken.count(&d)) chosen.push_back(&d);
    }
  }
  if (!by_name.count("targetIRanks")) {
    error = "targetIRanks is defined in none of the given files (give cacheSplitConcat.cpp or .cu)";
    return std::nullopt;
  }
  CxxBuild build;
  const int layout = target_ranks_layout(chosen, build.layout);

  Generator g;
  g.line("// Generated by tpcheck conform: the functions cut out of the files under test, the stub");
  g.line("// header they are compiled against, and the driver that calls them.");
  g.line("#define TPCHECK_TARGET_RANKS_LAYOUT " + std::to_string(layout));
  g.line("#include \"trtllm_stub.hpp\"");
  // The class of the members, declaring exactly the members defined.
  std::map<std::pair<std::string, std::vector<std::string>>, std::vector<const CxxDefinition*>> classes;
  for (const auto* d : chosen) {
    if (!d->class_name.empty()) classes[{d->class_name, d->namespaces}].push_back(d);
  }
  std::string formatter_alias;
  for (const auto& [key, members] : classes) {
    const auto& [name, ns] = key;
    g.line(open_namespaces(ns));
    g.line("class " + name + " {\n public:\n  using SizeType32 = ::tensorrt_llm::runtime::SizeType32;\n"
           "  using CacheState = ::tensorrt_llm::executor::kv_cache::CacheState;");
    for (const auto* m : members) g.line("  " + member_declaration(*m));
    g.line("};");
    g.line(close_namespaces(ns));
    if (name == "CacheFormatter") {
      std::string qualified;
      for (const auto& n : ns) qualified += "::" + (n.empty() ? std::string() : n);
      formatter_alias = "using TpcheckCacheFormatter = " + qualified + "::CacheFormatter;";
    }
  }
  std::set<std::string> usings_done;
  for (const auto& s : scans) {
    for (const auto& u : s.usings) {
      std::string target = u.target;
      if (target.rfind("::", 0) == 0) target.erase(0, 2);
      if (!kStubNamespaces.count(target)) continue;
      const std::string text = open_namespaces(u.namespaces) + u.text + close_namespaces(u.namespaces);
      if (usings_done.insert(text).second) g.line(text);
    }
  }
  // Free functions are declared first, so that file order does not matter.
  for (const auto* d : chosen) {
    if (!d->class_name.empty()) continue;
    const std::string decl = d->text.substr(0, d->body_offset);
    if (decl.find('=') != std::string::npos || decl.find("template") != std::string::npos) continue;
    g.line(open_namespaces(d->namespaces) + decl + ";" + close_namespaces(d->namespaces));
  }
  for (const auto* d : chosen) g.definition(*d);
  if (!formatter_alias.empty()) g.line(formatter_alias);
  auto has = [&](const std::string& name) { return by_name.count(name) && taken.count(by_name.at(name)); };
  g.line("#define TPCHECK_HAS_NEED_SEND " + std::string(has("CacheFormatter::needSendCache") ? "1" : "0"));
  g.line("#define TPCHECK_HAS_PICK " + std::string(has("CacheFormatter::pickRecvConnections") ? "1" : "0"));
  g.line("#define TPCHECK_HAS_INQUIRE " + std::string(has("CacheFormatter::inquireSupport") ? "1" : "0"));
  // What the version reads: one that never reads attention DP or the stages'
  // layer counts has neither (the oldest), and is not asked about them.
  auto reads = [&](std::initializer_list<const char*> names) {
    return std::any_of(chosen.begin(), chosen.end(), [&](const CxxDefinition* d) {
      return std::any_of(names.begin(), names.end(), [&](const char* n) { return contains(d->identifiers, n); });
    });
  };
  g.line("#define TPCHECK_READS_ADP " + std::string(reads({"mEnableAttentionDP", "mEnableAttenionDP"}) ? "1" : "0"));
  g.line("#define TPCHECK_READS_LAYER_SPLIT " + std::string(reads({"mAttentionLayerNumPerPP"}) ? "1" : "0"));
  g.line("#include \"trtllm_observe.hpp\"");
  g.line("namespace tpcheck_trtllm {");
  g.line("const Extracted kExtracted[] = {");
  for (const auto& b : bindings) {
    const std::string f = b.call.functions.empty() ? b.name : b.call.functions.front();
    if (has(f)) {
      const auto* d = by_name.at(f);
      g.line("  {" + quoted(b.name) + ", " + quoted(d->name) + ", " + quoted(d->file + ":" + std::to_string(d->line)) +
             ", \"\"},");
    } else {
      g.line("  {" + quoted(b.name) + ", \"\", \"\", " + quoted("no definition of " + f + " in the given files") + "},");
    }
  }
  g.line("};");
  g.line("}  // namespace tpcheck_trtllm");
  g.line(target == CxxTarget::Fuzz ? "#include \"trtllm_fuzz_main.hpp\"" : "#include \"trtllm_child_main.hpp\"");
  const std::string source = g.take();

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
    // The compiler's first error, where it points.
    std::string first;
    std::stringstream lines(compiled.output);
    for (std::string l; std::getline(lines, l);) {
      if (l.find("error:") != std::string::npos) {
        first = l;
        break;
      }
    }
    fs::remove_all(work_dir, ec);
    error = "the C++ functions do not build: " +
            (first.empty() ? cxx + " " + compiled.ended : first);
    return std::nullopt;
  }
  fs::rename(work_dir, dir, ec);
  if (ec) fs::remove_all(work_dir, ec);  // another run built it meanwhile
  build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return build;
}

}  // namespace tpcheck::conform
