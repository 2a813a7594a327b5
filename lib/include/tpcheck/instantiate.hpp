// Explicit instantiation for the model's two integer types (the model in lib/,
// the predicates in properties/). Consumers
// only see declarations (tpcheck/model.hpp), so the model is compiled once,
// here, and a build-time fault switch (TPCHECK_MUTANT) reaches every caller.
#pragma once

#include <cstdint>

#include "tpcheck/pyint.hpp"

#define TPCHECK_INSTANTIATE(MACRO) \
  MACRO(std::int64_t)              \
  MACRO(::tpcheck::BigInt)
