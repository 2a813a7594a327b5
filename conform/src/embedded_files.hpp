// Files conform carries in the binary, embedded at build time by
// conform/CMakeLists.txt: the sources of the C++ children (each engine's
// cxx/, embedded_cxx.cpp) and the parts of the tests --write-tests writes
// (conform/written/ and each engine's written/, embedded_written.cpp).
#pragma once

#include <cstddef>

namespace tpcheck::conform {

struct EmbeddedFile {
  const char* name;
  const char* text;
};
extern const EmbeddedFile kCxxFiles[];
extern const std::size_t kCxxFileCount;
extern const EmbeddedFile kWrittenParts[];
extern const std::size_t kWrittenPartCount;

}  // namespace tpcheck::conform
