// The extractor of a tpcheck built without libclang's headers.
#include "cxx_extract.hpp"

namespace tpcheck::conform {

namespace {
constexpr const char* kWhy = "this tpcheck was built without libclang's headers (Debian: libclang-14-dev)";
}

bool libclang_available(std::string& why_not) {
  why_not = kWhy;
  return false;
}

std::optional<CxxScan> scan_cxx_file(const std::string&, std::string& error) {
  error = kWhy;
  return std::nullopt;
}

}  // namespace tpcheck::conform
