// The registry targets' committed coverage inputs, named by what they select
// (registry_driver.hpp): each holds the key of its entry's (operation's) name
// in its selector fields, so entries added to the registry move none of them,
// and its file is named "<label>.<hash>": what it selects (InputName's label)
// and the FNV-1a hash of its bytes, 16 hex digits.
//
//   fuzz_<target> --name-inputs DIR    (replay build) rewrites every input of DIR so
//   TPCHECK_FUZZ_NAME_INPUTS=DIR fuzz_<target>   (libFuzzer build, scripts/fuzz_merge.sh)
//   fuzz_<target> --check-names DIR    exit 1, naming each input of DIR that is not so
//
// Linked into fuzz_invariants and fuzz_differential only.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "registry_driver.hpp"

namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::string self_name() {
  return std::string("fuzz_") + (tpcheck::fuzz::target_entry() ? "differential" : "invariants");
}

std::string file_name(const Bytes& keyed) {
  const std::string_view bytes(reinterpret_cast<const char*>(keyed.data()), keyed.size());
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(tpcheck::fuzz::name_key(bytes)));
  return tpcheck::fuzz::input_name(keyed.data(), keyed.size(), tpcheck::fuzz::target_entry()).label + "." + hash;
}

// The inputs directly in `dir` (notes, *.txt and *.md, aside), or an error.
bool inputs_in(const fs::path& dir, std::vector<fs::path>& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "%s: no such directory: %s\n", self_name().c_str(), dir.c_str());
    return false;
  }
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    const std::string ext = f.path().extension().string();
    if (f.is_regular_file() && ext != ".txt" && ext != ".md") out.push_back(f.path());
  }
  if (ec) {
    std::fprintf(stderr, "%s: cannot read %s: %s\n", self_name().c_str(), dir.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

// The inputs of `dir` with their bytes and their keyed form, or an error.
struct Input {
  fs::path path;
  Bytes bytes;
  Bytes keyed;
};
bool read_inputs(const fs::path& dir, std::vector<Input>& out) {
  std::vector<fs::path> paths;
  if (!inputs_in(dir, paths)) return false;
  for (const fs::path& p : paths) {
    std::optional<Bytes> bytes = tpcheck::fuzz::read_input_file(p);
    if (!bytes) {
      std::fprintf(stderr, "%s: cannot read %s\n", self_name().c_str(), p.c_str());
      return false;
    }
    Bytes keyed = tpcheck::fuzz::keyed_input(bytes->data(), bytes->size(), tpcheck::fuzz::target_entry());
    out.push_back({p, std::move(*bytes), std::move(keyed)});
  }
  return true;
}

int name_inputs(const fs::path& dir) {
  std::vector<Input> inputs;
  if (!read_inputs(dir, inputs)) return 2;
  std::size_t renamed = 0;
  for (const Input& input : inputs) {
    const fs::path named = dir / file_name(input.keyed);
    if (named == input.path && input.keyed == input.bytes) continue;
    // Written beside, then the old name removed: an input is never lost halfway.
    std::ofstream out(named, std::ios::binary);
    out.write(reinterpret_cast<const char*>(input.keyed.data()), static_cast<std::streamsize>(input.keyed.size()));
    out.close();
    std::error_code ec;
    if (!out || (named != input.path && !fs::remove(input.path, ec))) {
      std::fprintf(stderr, "%s: cannot write %s\n", self_name().c_str(), named.c_str());
      return 2;
    }
    ++renamed;
  }
  std::printf("%s: named %zu of %zu inputs in %s by what they select\n", self_name().c_str(), renamed,
              inputs.size(), dir.c_str());
  return 0;
}

int check_names(const fs::path& dir) {
  std::vector<Input> inputs;
  if (!read_inputs(dir, inputs)) return 2;
  if (inputs.empty()) {
    std::fprintf(stderr, "%s: no inputs in %s\n", self_name().c_str(), dir.c_str());
    return 1;
  }
  std::size_t problems = 0;
  for (const Input& input : inputs) {
    const auto name = tpcheck::fuzz::input_name(input.bytes.data(), input.bytes.size(), tpcheck::fuzz::target_entry());
    if (!name.keyed) {
      std::fprintf(stderr,
                   "%s: selects %s by its index, not by name: an input not named yet (%s --name-inputs), or one "
                   "whose entry or operation was renamed or removed (delete it)\n",
                   input.path.c_str(), name.label.c_str(), self_name().c_str());
      ++problems;
    } else if (input.path.filename() != file_name(input.keyed)) {
      std::fprintf(stderr, "%s: selects %s: its name should be %s (%s --name-inputs)\n", input.path.c_str(),
                   name.label.c_str(), file_name(input.keyed).c_str(), self_name().c_str());
      ++problems;
    }
  }
  if (problems > 0) {
    std::fprintf(stderr, "%s: %zu of %zu inputs in %s not named by what they select\n", self_name().c_str(),
                 problems, inputs.size(), dir.c_str());
    return 1;
  }
  std::printf("%s: all %zu inputs in %s select by name, and are named so\n", self_name().c_str(), inputs.size(),
              dir.c_str());
  return 0;
}

}  // namespace

// The replay driver's --name-inputs and --check-names.
extern "C" int tpcheck_fuzz_name_inputs(const char* dir, int check_only) {
  return check_only ? check_names(dir) : name_inputs(dir);
}

// A libFuzzer build: TPCHECK_FUZZ_NAME_INPUTS=DIR names DIR's inputs and
// exits before fuzzing (scripts/fuzz_merge.sh). libFuzzer calls this first.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TPCHECK_FUZZ_NAME_INPUTS")) std::exit(name_inputs(dir));
  return 0;
}
