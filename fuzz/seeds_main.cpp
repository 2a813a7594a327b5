// Writes (or checks) the seed inputs of the registry fuzz targets from the
// registry itself: for every entry, for each of its domains and each kind it
// declares, the first non-vacuous case the sweep's enumeration meets at a
// small bound whose values all differ (flags aside: a text naming the remote
// size where the local one is due reads the same on a case with L == R),
// else the first, encoded by the inverse of the targets' decoder. For an
// error oracle also, for each precondition and each later check that holds
// where it fails first, such a case (a model that checks the two in another
// order raises another error there): <Entry>.<kind>.also_<other kind>.
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
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "registry_driver.hpp"
#include "tpcheck/oracle.hpp"

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

// Whether the case's values differ from each other, its flags aside.
bool values_differ(const dom::Domain& d, const std::int64_t* values) {
  for (int i = 0; i < d.width(); ++i) {
    for (int j = i + 1; j < d.width(); ++j) {
      if (!d.is_flag(i) && !d.is_flag(j) && values[i] == values[j]) return false;
    }
  }
  return true;
}

// The case kept for a kind: the first met whose values differ, else the first.
struct Kept {
  std::vector<std::int64_t> values;
  bool differ = false;
};

void keep(std::map<std::size_t, Kept>& kept, std::size_t key, const dom::Domain& d, const std::int64_t* values) {
  const bool differ = values_differ(d, values);
  const auto found = kept.find(key);
  if (found != kept.end() && (found->second.differ || !differ)) return;
  kept[key] = {std::vector<std::int64_t>(values, values + d.width()), differ};
}

bool add_seed(Files& files, const fs::path& path, const inv::Entry& e, std::size_t d, const Kept& kept,
              bool differential_too, const fs::path& differential) {
  RegistryCase c{&e, IntType::Int64, d, {}};
  for (const std::int64_t v : kept.values) c.values.emplace_back(v);
  if (!add_encoded(files, path, c, true)) return false;
  return !differential_too || add_encoded(files, differential / "seed" / path.filename(), c, false);
}

// An error oracle's pairs of checks: for a precondition that fails first and
// another check that holds there too (a later precondition, or a way to
// succeed), the first such case. A model that checks them in another order
// raises another error there (or none), so the corpus replay catches it.
// Keyed k * kMaxKinds + other, `other` a kind of the entry.
void pairs_of(const tpcheck::oracle::Oracle& o, const dom::Domain& d, const std::int64_t* values,
              std::map<std::size_t, Kept>& pairs) {
  std::array<std::int64_t, dom::kMaxValues> args{};
  for (std::size_t i = 0; i < o.parameters.size(); ++i) args[i] = values[o.position[i]];
  const std::size_t n = o.preconditions.size();
  const std::size_t first = tpcheck::oracle::first_failing(o, args.data());
  if (first >= n) return;
  const inv::KindMask failing = tpcheck::oracle::failing_preconditions(o, args.data());
  const inv::KindMask succeeding = o.int64.successes(o.typed.get(), args.data(), o.parameters.size());
  for (std::size_t j = first + 1; j < n; ++j) {
    if (failing >> j & 1) keep(pairs, first * inv::kMaxKinds + j, d, values);
  }
  for (std::size_t s = 0; s < o.successes.size(); ++s) {
    if (succeeding >> s & 1) keep(pairs, first * inv::kMaxKinds + n + s, d, values);
  }
}

// For each kind of each domain of the entry, the first non-vacuous case (one
// whose values differ where there is one); for an error oracle, its pairs of checks too.
bool seeds_of(const inv::Entry& e, const fs::path& invariants, const fs::path& differential, Files& files) {
  const bool is_differential = e.domains.size() > 1;
  const tpcheck::oracle::Oracle* oracle = tpcheck::oracle::oracle_named(e.name);
  for (std::size_t d = 0; d < e.domains.size(); ++d) {
    std::map<std::size_t, Kept> of_kind, pairs;
    dom::for_each_case(e.domains[d], kSeedBound, [&](const std::int64_t* values) {
      inv::KindMask kinds = 0;
      if (!e.check(d, values, &kinds).non_vacuous()) return;
      for (std::size_t k = 0; k < e.kinds.size(); ++k) {
        if (kinds >> k & 1) keep(of_kind, k, e.domains[d], values);
      }
      if (oracle) pairs_of(*oracle, e.domains[d], values, pairs);
    });
    for (std::size_t k = 0; k < e.kinds.size(); ++k) {
      if (is_differential && k != d) continue;  // an operation's kind is the operation itself
      if (!of_kind.count(k)) {
        std::cerr << "tpcheck_fuzz_seeds: " << e.name << ": no case of kind '" << e.kinds[k] << "' up to sizes "
                  << kSeedBound.max_tp << " and head counts " << kSeedBound.max_heads << "\n";
        return false;
      }
      const std::string name = is_differential ? std::string(e.domain_names[d]) : std::string(e.name) + "." + slug(e.kinds[k]);
      if (!add_seed(files, invariants / "seed" / name, e, d, of_kind[k], is_differential, differential)) return false;
    }
    for (const auto& [key, kept] : pairs) {
      const std::size_t first = key / inv::kMaxKinds, other = key % inv::kMaxKinds;
      const std::string name = std::string(e.name) + "." + slug(e.kinds[first]) + ".also_" + slug(e.kinds[other]);
      if (!add_seed(files, invariants / "seed" / name, e, d, kept, false, differential)) return false;
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
    } else if (tpcheck::fuzz::read_input_file(path) != bytes) {
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
