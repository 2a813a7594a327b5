// The sources of the C++ children (conform/engines/*/cxx/*), embedded at
// build time by conform/CMakeLists.txt into embedded_cxx.cpp.
#pragma once

#include <cstddef>

namespace tpcheck::conform {

struct EmbeddedFile {
  const char* name;
  const char* text;
};
extern const EmbeddedFile kCxxFiles[];
extern const std::size_t kCxxFileCount;

}  // namespace tpcheck::conform
