// Explicit instantiation for the model's integer types. Consumers only see
// declarations (tpcheck/model.hpp), so the model is compiled once, here.
//
//   TPCHECK_INSTANTIATE        int64 and cpp_int: the model and the predicates
//                              (properties/ runs its predicates in these);
//   TPCHECK_INSTANTIATE_MODEL  also int16: the narrow model the exhaustive
//                              sweep compares with cpp_int, so its overflow
//                              guards are crossed at small sizes.
#pragma once

#include <cstdint>

#include "tpcheck/pyint.hpp"

#define TPCHECK_INSTANTIATE(MACRO) \
  MACRO(std::int64_t)              \
  MACRO(::tpcheck::BigInt)

#define TPCHECK_INSTANTIATE_MODEL(MACRO) \
  TPCHECK_INSTANTIATE(MACRO)             \
  MACRO(std::int16_t)
