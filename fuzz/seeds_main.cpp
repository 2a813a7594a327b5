// Writes (or checks) the seed inputs of the registry fuzz targets from the
// registry itself: for every entry, for each of its domains and each kind it
// declares, the first non-vacuous case the sweep's enumeration meets at a
// small bound, encoded by the inverse of the targets' decoder.
//
//   tpcheck_fuzz_seeds --write CORPUS_DIR   rewrite CORPUS_DIR/{invariants,differential}/seed/
//                                           and the migrated regression inputs
//   tpcheck_fuzz_seeds --check CORPUS_DIR   exit 1 unless the committed files are
//                                           exactly what --write writes
//
// Seeds are named <Entry>.<kind> (fuzz_invariants) and <operation>
// (fuzz_differential). The regression inputs below are the ones earlier fuzz
// targets found (corpus/invariants/regression/<name>.txt tells their story),
// re-encoded for the registry layout.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "registry_driver.hpp"

namespace fs = std::filesystem;
using tpcheck::BigInt;
using tpcheck::fuzz::IntType;
using tpcheck::fuzz::RegistryCase;
namespace inv = tpcheck::inv;
namespace dom = tpcheck::dom;

namespace {

// Small enough to walk every domain in a moment, large enough that every
// declared kind has a case (the tool fails naming a kind that has none).
constexpr dom::Bound kSeedBound{8, 16};

struct NamedInput {
  const char* name;
  const char* entry;
  IntType type;
  std::vector<const char*> values;  // decimal, in the domain's order
};

// Inputs an earlier target found, kept for the class of fault each caught.
const std::vector<NamedInput> kRegressions = {
    {"planted_remote_rank_L_4095", "MappedRankStaysInBounds", IntType::Int64, {"4095", "1", "0"}},
    {"planted_remote_rank_L_multiple_of_7", "EveryRemoteRankHasBalancedFanIn", IntType::CppInt,
     {"129807421465787361760870949168611328", "129807421465787361760870949168611328", "0"}},
    {"slow_nixl_window_655360", "PlanSourcesMatchNixlOnDivisiblePairs", IntType::CppInt,
     {"12089313536378512875716608", "18446744073709551616", "0", "18446744073709551616", "0"}},
};

std::string slug(const std::string& label) {
  std::string text;
  for (std::size_t i = 0; i < label.size(); ++i) {
    const std::string rest = label.substr(i, 2);
    if (rest == "==" || rest == ">=" || rest == "<=") {
      text += rest == "==" ? " eq " : rest == ">=" ? " ge " : " le ";
      ++i;
    } else if (label[i] == '<' || label[i] == '>') {
      text += label[i] == '<' ? " lt " : " gt ";
    } else {
      text += label[i];
    }
  }
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

using Files = std::map<fs::path, std::vector<std::uint8_t>>;

bool add_encoded(Files& files, const fs::path& path, const RegistryCase& c, bool with_entry_field) {
  const auto bytes = tpcheck::fuzz::encode_case(c, with_entry_field);
  if (!bytes) {
    std::cerr << "tpcheck_fuzz_seeds: no choices encode " << tpcheck::fuzz::describe_case(c) << "\n";
    return false;
  }
  files[path] = *bytes;
  return true;
}

// For each kind of each domain of the entry, the first non-vacuous case.
bool seeds_of(const inv::Entry& e, const fs::path& invariants, const fs::path& differential, Files& files) {
  const bool is_differential = e.domains.size() > 1;
  for (std::size_t d = 0; d < e.domains.size(); ++d) {
    std::map<std::size_t, std::vector<std::int64_t>> first_of_kind;
    dom::for_each_case(e.domains[d], kSeedBound, [&](const std::int64_t* values) {
      inv::KindMask kinds = 0;
      if (!e.check(d, values, &kinds).non_vacuous()) return;
      for (std::size_t k = 0; k < e.kinds.size(); ++k) {
        if ((kinds >> k & 1) && !first_of_kind.count(k)) {
          first_of_kind[k].assign(values, values + e.domains[d].width());
        }
      }
    });
    for (std::size_t k = 0; k < e.kinds.size(); ++k) {
      if (is_differential && k != d) continue;  // an operation's kind is the operation itself
      if (!first_of_kind.count(k)) {
        std::cerr << "tpcheck_fuzz_seeds: " << e.name << ": no case of kind '" << e.kinds[k] << "' up to sizes "
                  << kSeedBound.max_tp << " and head counts " << kSeedBound.max_heads << "\n";
        return false;
      }
      RegistryCase c{&e, IntType::Int64, d, {}};
      for (const std::int64_t v : first_of_kind[k]) c.values.emplace_back(v);
      const std::string name = is_differential ? std::string(e.domain_names[d]) : std::string(e.name) + "." + slug(e.kinds[k]);
      if (!add_encoded(files, invariants / "seed" / name, c, true)) return false;
      if (is_differential && !add_encoded(files, differential / "seed" / name, c, false)) return false;
    }
  }
  return true;
}

bool all_files(const fs::path& corpus, Files& files) {
  const fs::path invariants = corpus / "invariants", differential = corpus / "differential";
  for (const inv::Entry* e : tpcheck::fuzz::fuzzed_entries()) {
    if (e->exclusion(inv::Engine::Seeds)) continue;
    if (!seeds_of(*e, invariants, differential, files)) return false;
  }
  for (const NamedInput& n : kRegressions) {
    RegistryCase c{inv::find_entry(n.entry), n.type, 0, {}};
    if (!c.entry) {
      std::cerr << "tpcheck_fuzz_seeds: regression " << n.name << " names no entry " << n.entry << "\n";
      return false;
    }
    for (const char* v : n.values) c.values.emplace_back(v);
    if (!add_encoded(files, invariants / "regression" / n.name, c, true)) return false;
  }
  return true;
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int write(const fs::path& corpus, const Files& files) {
  std::set<fs::path> seed_dirs;
  for (const auto& [path, bytes] : files) {
    if (path.parent_path().filename() == "seed") seed_dirs.insert(path.parent_path());
  }
  for (const fs::path& dir : seed_dirs) {  // seeds no longer generated go away
    if (!fs::is_directory(dir)) continue;
    for (const auto& f : fs::directory_iterator(dir)) {
      if (!files.count(f.path())) fs::remove(f.path());
    }
  }
  for (const auto& [path, bytes] : files) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::cerr << "tpcheck_fuzz_seeds: cannot write " << path << "\n";
      return 2;
    }
  }
  std::cout << "tpcheck_fuzz_seeds: wrote " << files.size() << " inputs under " << corpus << "\n";
  return 0;
}

int check(const Files& files) {
  int problems = 0;
  std::set<fs::path> seed_dirs;
  for (const auto& [path, bytes] : files) {
    if (path.parent_path().filename() == "seed") seed_dirs.insert(path.parent_path());
    if (!fs::is_regular_file(path)) {
      std::cerr << path.string() << ": missing (run tpcheck_fuzz_seeds --write)\n";
      ++problems;
    } else if (read_bytes(path) != bytes) {
      std::cerr << path.string() << ": bytes differ from what the registry gives (run tpcheck_fuzz_seeds --write)\n";
      ++problems;
    }
  }
  for (const fs::path& dir : seed_dirs) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& f : fs::directory_iterator(dir)) {
      if (!files.count(f.path())) {
        std::cerr << f.path().string() << ": not a seed the registry gives (run tpcheck_fuzz_seeds --write)\n";
        ++problems;
      }
    }
  }
  if (problems > 0) return 1;
  std::cout << "tpcheck_fuzz_seeds: " << files.size() << " inputs are exactly what the registry gives\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() != 2 || (args[0] != "--write" && args[0] != "--check")) {
    std::cerr << "usage: tpcheck_fuzz_seeds (--write | --check) CORPUS_DIR\n";
    return 2;
  }
  const fs::path corpus = args[1];
  if (!fs::is_directory(corpus)) {
    std::cerr << "tpcheck_fuzz_seeds: no such directory: " << corpus.string() << "\n";
    return 2;
  }
  Files files;
  if (!all_files(corpus, files)) return 2;
  return args[0] == "--write" ? write(corpus, files) : check(files);
}
