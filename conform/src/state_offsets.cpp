// What the offset-level state relations share (state_offsets.hpp).
#include "tpcheck/conform/state_offsets.hpp"

#include <algorithm>
#include <tuple>

#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::conform::state {

using I = std::int64_t;

std::vector<CaseArgs> served_cases(const GridBounds& bounds, const std::vector<StateFamily>& families) {
  std::vector<CaseArgs> out = state_cases(bounds, families, false);
  for (I T = 1; T <= state_sizes(bounds); ++T) {
    for (const std::size_t c : configs_of(families)) {
      if (loads(state_configs()[c], T)) out.push_back({T, T, static_cast<I>(c)});
    }
  }
  const auto key = [](const CaseArgs& a) { return std::make_tuple(BigInt(a[0] + a[1]), a[0], a[1], a[2]); };
  std::stable_sort(out.begin(), out.end(), [&](const CaseArgs& a, const CaseArgs& b) { return key(a) < key(b); });
  return out;
}

void judge_plan_part(const StateMemory& memory, StateJudge& judge, I d, I P, I D, StatePart part) {
  const SideBytes<I>& sender = memory.side(bytes::Side::Prefill);
  const SideBytes<I>& receiver = memory.side(bytes::Side::Decode);
  const auto plan = state_plan<I>(d, P, D, memory.config().dims);
  if (!plan.ok()) return;
  const bool page = sender.container == StateContainer::VllmPage;
  for (const auto& copy : plan.value()) {
    const StatePart its = copy.segment < sender.state.segment_count ? StatePart::Conv : StatePart::Ssm;
    if (its != part) continue;
    for_each_copy_run(copy, sender, receiver, [&](const ByteRun<I>& run) {
      for (I region = 0; region < static_cast<I>(memory.entry_count()); ++region) {
        if (!page && memory.entry(region).tensor != run.part) continue;
        judge.blocks(static_cast<I>(copy.p), d, region,
                     {{static_cast<I>(run.src), static_cast<I>(run.dst), static_cast<I>(run.length)}}, true);
      }
      return true;
    });
  }
}

}  // namespace tpcheck::conform::state
