// Outcomes in Python's notation, as `tpcheck eval` prints them and as a Python
// connector's results are compared: a value as repr() prints it, a failure as
// "Kind: message".
#pragma once

#include <string>
#include <vector>

#include "tpcheck/model.hpp"
#include "tpcheck/stages.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck {

inline std::string render(std::int16_t v) { return decimal(v); }
inline std::string render(std::int32_t v) { return decimal(v); }
inline std::string render(std::int64_t v) { return decimal(v); }
inline std::string render(__int128 v) { return decimal(v); }
inline std::string render(unsigned __int128 v) { return decimal(v); }
inline std::string render(const BigInt& v) { return decimal(v); }
inline std::string render(None) { return "None"; }
inline std::string render(bool v) { return v ? "True" : "False"; }

template <ModelInt Int>
std::string render(const Span<Int>& s) {
  return "(" + decimal(s.first) + ", " + decimal(s.end) + ")";
}

template <ModelInt Int>
std::string render(const Copy<Int>& c) {
  return "(" + decimal(c.p) + ", " + decimal(c.lo) + ", " + decimal(c.hi) + ")";
}

template <ModelInt Int>
std::string render(const WideSpan<Int>& r) {
  return "(" + decimal(r.first) + ", " + decimal(r.end) + ")";
}

// (source, lo, hi, first layer, end layer)
template <ModelInt Int>
std::string render(const StageCopy<Int>& c) {
  return "(" + decimal(c.source) + ", " + decimal(c.lo) + ", " + decimal(c.hi) + ", " + decimal(c.layers.first) + ", " +
         decimal(c.layers.end) + ")";
}

// (prefill, decode)
template <ModelInt Int>
std::string render(const DuplicateHeadFactors<Int>& f) {
  return "(" + decimal(f.prefill) + ", " + decimal(f.decode) + ")";
}

// (C_loc, ssm_heads, elements_per_head)
template <ModelInt Int>
std::string render(const StateShape<Int>& s) {
  return "(" + render(s.c_loc) + ", " + render(s.ssm_heads) + ", " + render(s.elements_per_head) + ")";
}

// ('x', lo, hi, local_lo, replicated): a segment's name as Python's repr of a str.
template <ModelInt Int>
std::string render(const SegmentRange<Int>& r) {
  return "('" + std::string(r.name) + "', " + render(r.lo) + ", " + render(r.hi) + ", " + render(r.local_lo) + ", " +
         (r.replicated ? "1" : "0") + ")";
}

// ('x', p, src, dst, n)
template <ModelInt Int>
std::string render(const StateCopy<Int>& c) {
  return "('" + std::string(c.name) + "', " + render(c.p) + ", " + render(c.src) + ", " + render(c.dst) + ", " +
         render(c.n) + ")";
}

template <class V>
std::string render(const std::vector<V>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += ", ";
    out += render(items[i]);
  }
  return out + "]";
}

inline std::string render(const Failure& f) {
  std::string out = std::string(kind_name(f.kind)) + ": ";
  f.message.append_to(out);
  return out;
}

template <class V>
std::string render(const Outcome<V>& o) {
  return o.ok() ? render(o.value()) : render(o.failure());
}

}  // namespace tpcheck
