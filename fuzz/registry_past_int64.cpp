// The registry targets' move past int64 (field_mutator.hpp), checked on
// committed inputs:
//
//   fuzz_<target> --check-past-int64 DIR
//
// For every input of DIR and every magnitude its layout offers the move for,
// the move (payload exponent 64) is decoded and asked whether it runs in
// cpp_int. One line per entry the move is offered for: its moves and how many
// left int64. Exit 1 when an entry with a size or a pair of sizes, and no cap
// on them, never left int64 (a size is drawn from a magnitude on every path,
// so the move must reach cpp_int there; a magnitude some shape leaves unused,
// a length's, may not), 2 on a usage or read error, 0 otherwise.
// fuzz_differential offers none (it runs in int64 alone).
//
// Linked into fuzz_invariants and fuzz_differential only.
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz_input.hpp"
#include "registry_driver.hpp"

namespace fs = std::filesystem;

extern "C" int tpcheck_fuzz_check_past_int64(const char* dir) {
  using namespace tpcheck::fuzz;
  struct Moves {
    const tpcheck::inv::Entry* entry = nullptr;
    std::size_t offered = 0, left_int64 = 0;
    bool has_sizes = false;  // a size or pair block in a domain it was offered on
  };
  std::map<std::string, Moves> by_entry;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "--check-past-int64: no such directory: %s\n", dir);
    return 2;
  }
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& path = it->path();
    if (!it->is_regular_file() || path.extension() == ".txt" || path.extension() == ".md") continue;
    const auto bytes = read_input_file(path);
    if (!bytes) {
      std::fprintf(stderr, "--check-past-int64: cannot read %s\n", path.c_str());
      return 2;
    }
    const FieldLayout layout = field_layout(bytes->data(), bytes->size(), target_entry());
    for (std::size_t which = 0; which < layout.magnitude_classes.size(); ++which) {
      std::vector<std::uint8_t> moved(layout.ranges.size() * kFieldBytes, 0);  // every field the layout reads
      std::copy_n(bytes->begin(), std::min(bytes->size(), moved.size()), moved.begin());
      if (!move_past_int64(moved.data(), moved.size(), layout, which, 64, 1)) continue;
      const RegistryCase c = decode_case(moved.data(), moved.size(), target_entry());
      Moves& m = by_entry[c.entry->name];
      m.entry = c.entry;
      ++m.offered;
      for (const tpcheck::dom::Block& b : c.entry->domains[c.domain].blocks()) {
        m.has_sizes = m.has_sizes || b.kind == tpcheck::dom::BlockKind::Size || b.kind == tpcheck::dom::BlockKind::Pair;
      }
      if (!runs_in_int64(c)) ++m.left_int64;
    }
  }
  if (ec) {
    std::fprintf(stderr, "--check-past-int64: cannot read directory %s: %s\n", dir, ec.message().c_str());
    return 2;
  }
  int status = 0;
  for (const auto& [name, m] : by_entry) {
    const bool wasted = m.left_int64 == 0 && m.entry->size_cap == 0 && m.has_sizes;
    std::printf("  %-50s %6zu moves, %6zu past int64%s\n", name.c_str(), m.offered, m.left_int64,
                wasted ? "  NEVER LEFT INT64" : "");
    if (wasted) status = 1;
  }
  std::printf("--check-past-int64: %zu entries offered the move%s\n", by_entry.size(),
              status == 0 ? "" : ", some never left int64 (see above)");
  return status;
}
