// How an oracle declaration becomes a registry entry (TPCHECK_ORACLE, in
// declare.hpp): the oracle is made once, kept where the entry's checks find
// it, and judged against the model on every case.
#pragma once

#include <type_traits>

#include "tpcheck/domain.hpp"
#include "tpcheck/oracle.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::oracle {

// What a declaration may change of the defaults.
struct Options {
  bool every_head_count = false;  // walk every head count from -1 up, not only the compatible ones and edges
  inv::Proof proof;               // default: proved by Z3 for all integers

  Options with_every_head_count() const {
    Options o = *this;
    o.every_head_count = true;
    return o;
  }
  Options proved(inv::Proof p) const {
    Options o = *this;
    o.proof = p;
    return o;
  }
};
inline Options options() { return {}; }

namespace detail {

// Puts the oracle on the list oracles() gives, where it stays.
const Oracle& register_oracle(Oracle oracle);
// The entry without its checks (make_entry sets them).
inv::Entry entry_of(const Oracle& o, const Options& options);

// Where the checks of the entry made from declaration `Declare` find its oracle.
template <class Declare>
const Oracle*& slot() {
  static const Oracle* oracle = nullptr;
  return oracle;
}

template <class Int, class Declare>
inv::Verdict check(std::size_t, const Int* values, inv::KindMask* kinds) {
  return judge(*slot<Declare>(), values, kinds);
}

template <class Declare>
inv::Entry make_entry(const char* name, const char* section, const char* signature, const Options& options,
                      const Declare& declare) {
  static_assert(std::is_empty_v<Declare>, "the declaration must be a captureless lambda");
  const Oracle& o = register_oracle(make_oracle(name, section, signature, declare));
  slot<Declare>() = &o;
  inv::Entry e = entry_of(o, options);
  e.check_int64 = &check<std::int64_t, Declare>;
  e.check_big = &check<BigInt, Declare>;
  e.check_int16 = &check<std::int16_t, Declare>;
  return e;
}

template <class Declare>
inv::Entry make_entry(const char* name, const char* section, const char* signature, const Declare& declare) {
  return make_entry(name, section, signature, Options{}, declare);
}

}  // namespace detail
}  // namespace tpcheck::oracle
