// One string from pieces (concat.hpp).
#include "tpcheck/concat.hpp"

namespace tpcheck {

std::string concat(std::initializer_list<std::string_view> pieces) {
  std::size_t size = 0;
  for (const std::string_view p : pieces) size += p.size();
  std::string out;
  out.reserve(size);
  for (const std::string_view p : pieces) out.append(p);
  return out;
}

}  // namespace tpcheck
