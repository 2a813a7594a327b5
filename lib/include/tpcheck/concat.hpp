// One string from pieces, in one allocation.
//
// The parsers' error texts are their output, built for every bad input a
// fuzzer gives them; `"a" + std::string(x) + "b" + ...` allocates once per
// `+` (and under ASan each allocation records a stack trace).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace tpcheck {

// Out of line (lib/src/concat.cpp), so that fuzz builds leave its loops over
// the pieces uninstrumented, as they leave std::string's own
// (fuzz/coverage_ignorelist.txt).
std::string concat(std::initializer_list<std::string_view> pieces);

}  // namespace tpcheck
