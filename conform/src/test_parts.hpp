// The Python a written test carries besides its tables (write_tests.hpp):
// blocks of the written parts (conform/written/, each engine's written/) and,
// for the engines' stand-ins, of the child's program. A block is a top-level
// definition (def, class, or NAME = ...) with the comment lines right above
// it; a file gets the blocks its code names, with those they name in turn.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace tpcheck::conform {

struct PartBlock {
  std::string name;
  std::string text;  // with its trailing newline
  bool from_child = false;
};

// The blocks `names` need, with the blocks they name, transitively: written
// parts first (in their order), then the child's. `missing` gets the names
// no block defines.
std::vector<const PartBlock*> blocks_for(const std::set<std::string>& names, std::set<std::string>& missing);

// The identifiers Python code names (not attributes, not in strings or comments).
std::set<std::string> names_in(const std::string& code);

// The standard-library modules the code uses as `module.attribute`, of those
// a written test's blocks may use.
std::set<std::string> modules_used(const std::string& code);

}  // namespace tpcheck::conform
