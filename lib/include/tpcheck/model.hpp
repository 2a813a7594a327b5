// The reference model of heterogeneous-TP prefill/decode topology (SPEC §1-8).
//
// Every operation is declared once over `Int` and instantiated (in lib/src)
// for std::int64_t and boost::multiprecision::cpp_int only. Arguments are
// Python integers; outcomes carry either the value or the exact failure the
// Python reference raises. Where the SPEC is silent about an invalid input,
// the model fails with a ValueError naming the bad argument (lib/src/messages.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck {

// A half-open range of ranks or heads [first, end).
template <ModelInt Int>
struct Span {
  Int first;
  Int end;
  bool operator==(const Span&) const = default;
};

// One copy of a read plan: heads [lo, hi) of the decode rank come from prefill rank p.
template <ModelInt Int>
struct Copy {
  Int p;
  Int lo;
  Int hi;
  bool operator==(const Copy&) const = default;
};

template <ModelInt Int>
using Window = std::vector<Int>;
template <ModelInt Int>
using Plan = std::vector<Copy<Int>>;

// Windows and plans are listed one element per remote rank; past this many the
// model refuses to list one (a ValueError naming the count) rather than
// allocate without bound. Their spans and counts have no such limit.
inline constexpr std::int64_t kMaxListed = std::int64_t{1} << 20;

// §1 MoRIIO's strict map: the remote rank local rank r pairs with.
template <ModelInt Int>
Outcome<Int> remote_rank(const Int& r, const Int& L, const Int& R);

// §2 floor(r * R / L): NIXL's map, no divisibility requirement.
template <ModelInt Int>
Outcome<Int> general_rank(const Int& r, const Int& L, const Int& R);

// §3 L // R when L >= R, -(R // L) when the remote side is larger.
template <ModelInt Int>
Outcome<Int> tp_ratio(const Int& L, const Int& R);

// §3 the remote ranks local rank r talks to, as the span they form.
template <ModelInt Int>
Outcome<Span<Int>> window_span(const Int& r, const Int& L, const Int& R);

// §3 the same ranks, listed.
template <ModelInt Int>
Outcome<Window<Int>> window(const Int& r, const Int& L, const Int& R);

// §4 whether H heads shard over T ranks: T, H >= 1 and (T % H == 0 or H % T == 0).
template <ModelInt Int>
bool head_compatible(const Int& T, const Int& H);

// §4 the heads rank r of a T-rank engine holds.
template <ModelInt Int>
Outcome<Span<Int>> heads(const Int& r, const Int& T, const Int& H);

// §4 the ranks of a T-rank engine that hold head h: [first, end).
template <ModelInt Int>
Outcome<Span<Int>> holders(const Int& h, const Int& T, const Int& H);

// §5 MoRIIO's head guard as upstream has it (mla or L == R accepts first).
template <ModelInt Int>
Outcome<None> kv_heads_guard(const Int& L, const Int& R, const Int& H, bool mla);

// §5 the strict variant: positivity of L, R and H is checked first.
template <ModelInt Int>
Outcome<None> kv_heads_guard_strict(const Int& L, const Int& R, const Int& H, bool mla);

// §6 the general read plan of decode rank d (MLA reads as H = 1).
template <ModelInt Int>
Outcome<Plan<Int>> plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §6 the same plan written to `copies` (cleared first, its storage reused):
// nothing on success, the failure plan() gives otherwise. For engines that
// read many plans, so a plan allocates nothing once the buffer has grown.
template <ModelInt Int>
std::optional<Failure> plan_into(Plan<Int>& copies, const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §6 copies [first, first + count) of the same plan (fewer where the plan
// ends first) written to `copies` as plan_into does: the same copies,
// computed one by one from copy `first` on, so a caller that looks at a few
// copies of a long plan (the fuzzers' walks) does not list all of them.
// plan_into is this range over the whole plan. A range of more than
// kMaxListed copies fails as plan() does. Precondition: first, count >= 0.
template <ModelInt Int>
std::optional<Failure> plan_range_into(Plan<Int>& copies, const Int& d, const Int& P, const Int& D, const Int& H,
                                       bool mla, const Int& first, const Int& count);

// §6 how many copies plan(d, ...) has, without listing them.
template <ModelInt Int>
Outcome<Int> plan_copy_count(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §6 MoRIIO's single whole-page copy: [(q, first(q), end(q))] with
// q = remote_rank(d, D, P). It is a correct plan only where q's page holds
// exactly d's heads.
template <ModelInt Int>
Outcome<Plan<Int>> single_source_plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §7 how many decode ranks copy from prefill rank p under the general plan.
template <ModelInt Int>
Outcome<Int> readers(const Int& p, const Int& P, const Int& D, const Int& H, bool mla);

// §7 how many decode ranks copy from p under MoRIIO's single-source map.
template <ModelInt Int>
Outcome<Int> single_readers(const Int& p, const Int& P, const Int& D);

// §8 dp_rank * tp_size + tp_rank, in a type wide enough for any int64 input.
template <ModelInt Int>
Outcome<wide_t<Int>> port_offset(const Int& dp_rank, const Int& tp_rank, const Int& tp_size);

// §8 the host of rank q of a T-rank engine spanning n hosts.
template <ModelInt Int>
Outcome<Int> host_index(const Int& q, const Int& T, const Int& n);

// §8 a deployment's port range: accepts when base + every offset <= 65535.
template <ModelInt Int>
Outcome<None> port_range(const Int& base, const Int& dp_size, const Int& tp_size);

}  // namespace tpcheck
