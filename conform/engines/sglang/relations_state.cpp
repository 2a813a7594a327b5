// SPEC §16.6 and §16.7: SGLang's hybrid state slices against the model, one
// configuration (P, D, model) at a time, on the core's state judge
// (state_judge.hpp): the slice helpers' blocks (of slice-axis units, or of a
// slot's bytes) per pair and entry, and the bytes the Mooncake and NIXL
// managers' _send_mamba_state_slice move (capture_judge.hpp). A sizing whose
// P and D do not divide is judged the same way, its kinds under nondiv:, and
// any state moved for it is accepts_invalid.
#include "capture.hpp"
#include "capture_judge.hpp"
#include "sglang.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {
namespace {

using state::StateJudge;
using state::StateMemory;

// The memory of SGLang's pool, or of slice-axis units, for a configuration.
StateMemory pool_memory(const state::StateCase& c, bool units) {
  const auto& config = state::state_configs()[c.config];
  const state::SideSpec spec = units ? state::slice_units() : state::sglang_pool(config.dims.family);
  return StateMemory(state::StateLayout(), config, c.P, c.D, spec, spec);
}

std::string prefix_of(const state::StateCase& c) { return c.sizing == state::Sizing::Valid ? "" : "nondiv:"; }

void accepts_invalid(const state::StateCase& c, bool moved, FindingSet& findings) {
  if (c.sizing == state::Sizing::Valid || !moved) return;
  findings.add("accepts_invalid", std::nullopt, std::nullopt,
               "no state moved: P = " + decimal(c.P) + " and D = " + decimal(c.D) + " do not divide",
               "state moved (see the nondiv: kinds)");
}

// The configuration of a case whose answer can be judged; otherwise `j` says
// why not (the child's failure, or a case outside the grid).
std::optional<state::StateCase> judged_case(const CaseArgs& args, const Actual& actual, Judgement& j) {
  if (actual.status != Actual::Status::Value) {
    j = unreadable(actual);
    return std::nullopt;
  }
  const auto c = state::state_case(args);
  if (!c || (c->sizing != state::Sizing::Valid && c->sizing != state::Sizing::NotDivisible)) {
    j.not_compared = true;
    return std::nullopt;
  }
  return c;
}

// Blocks "[(src,dst,n),...]" (lists or tuples), if that is what the answer is.
std::optional<std::vector<std::array<std::int64_t, 3>>> read_blocks(const std::string& text) {
  const auto tree = capture::read_int_tree(text);
  if (!tree || !tree->is_list) return std::nullopt;
  std::vector<std::array<std::int64_t, 3>> out;
  for (const auto& item : tree->items) {
    const auto v = capture::flat_ints(item);
    if (!item.is_list || !v || v->size() != 3) return std::nullopt;
    out.push_back({(*v)[0], (*v)[1], (*v)[2]});
  }
  return out;
}

// The slice helpers: each pair's blocks of each entry, judged as transfers
// between the request's slots (units: a channel, or a head; bytes: the pool's).
Judgement judge_blocks(const CaseArgs& args, const Actual& actual, bool in_bytes) {
  Judgement j;
  const auto c = judged_case(args, actual, j);
  if (!c) return j;
  const StateMemory memory = pool_memory(*c, !in_bytes);
  FindingSet findings;
  StateJudge judge(memory, findings, prefix_of(*c), true);
  std::size_t malformed = 0;
  std::uint64_t blocks = 0;
  bool moved = false;
  for (const auto& item : capture::read_items(actual.text, malformed)) {
    if (item.coords.size() != 3 || item.coords[0] < 0 || item.coords[0] >= c->P || item.coords[1] < 0 ||
        item.coords[1] >= c->D || item.coords[2] < 0 || item.coords[2] >= static_cast<std::int64_t>(memory.entry_count())) {
      ++malformed;
      continue;
    }
    const std::int64_t p = item.coords[0], d = item.coords[1], e = item.coords[2];
    if (item.raised) {
      // Refusing a sizing the model refuses is right.
      if (c->sizing == state::Sizing::Valid) {
        findings.add("raises:" + item.exception_class, p, d, "the state plan's copies as blocks",
                     item.exception_class + ": " + item.message);
      }
      continue;
    }
    const auto read = read_blocks(item.value);
    if (!read) {
      const bool floats = item.value.find("?float") != std::string::npos;
      findings.add(prefix_of(*c) + (floats ? "non_integer_address" : "malformed_blocks"), p, d,
                   "[(src, dst, n), ...] in " + std::string(in_bytes ? "bytes" : "slice-axis units"),
                   item.value.substr(0, 200));
      continue;
    }
    blocks += read->size();
    for (const auto& b : *read) moved = moved || b[2] > 0;
    judge.blocks(p, d, e, *read, in_bytes);
  }
  // A sizing the model refuses, refused: nothing to say of what it would write.
  if (c->sizing == state::Sizing::Valid || moved) judge.finish();
  accepts_invalid(*c, moved, findings);
  if (malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "an answer tpcheck can read",
                 decimal(static_cast<std::int64_t>(malformed)) + " lines of the driver's answer could not be read");
  }
  j.findings = findings.take();
  j.tallies = {{"configurations", 1},
               {"blocks", blocks},
               {in_bytes ? "decoded bytes" : "decoded units", judge.decoded_bytes()}};
  return j;
}

// The managers' sends: Mooncake's batches or NIXL's descriptors and transfers.
Judgement judge_sends(const CaseArgs& args, const Actual& actual, bool mooncake) {
  Judgement j;
  const auto c = judged_case(args, actual, j);
  if (!c) return j;
  const StateMemory memory = pool_memory(*c, false);
  const capture::TransferLog log = capture::read_transfer_log(actual.text);
  FindingSet findings;
  StateJudge judge(memory, findings, prefix_of(*c));
  sglang::CaptureJudge cj(findings, judge);
  if (c->sizing == state::Sizing::Valid) sglang::judge_pairings(log, c->P, c->D, findings);
  sglang::judge_sends(log, cj, mooncake);
  const bool moved = judge.transfers() > 0;
  if (c->sizing == state::Sizing::Valid || moved) cj.finish();
  accepts_invalid(*c, moved, findings);
  sglang::close_log(log, c->D, cj, findings, j);
  return j;
}

std::string units_compared(const Binding&) {
  return "per pair SGLang forms and state entry: the blocks' map of slice-axis units (channels, heads) is the state "
         "plan's copies from p to d, and covers each decode rank's state (SPEC §16.6)";
}

std::string bytes_compared(const Binding&) {
  return "per pair SGLang forms and state entry: the blocks' map of a slot's bytes, under SGLang's pool layout, is "
         "the state plan's copies from p to d, and covers each decode rank's state (SPEC §16.6)";
}

std::string every_state_byte(const Binding&) {
  return "every byte moved, from the same layer, tensor, segment, logical channel or head, row or element and byte "
         "of the request's slot of a prefill rank, into the request's slot; every byte of each decode rank's state "
         "written (SPEC §16.7)";
}

}  // namespace

const Relation kStateSliceBlocks{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_blocks(args, actual, false); },
    .compared_with = units_compared,
    .findings = true,
};

const Relation kStateSliceByteBlocks{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_blocks(args, actual, true); },
    .compared_with = bytes_compared,
    .findings = true,
};

const Relation kMooncakeState{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_sends(args, actual, true); },
    .compared_with = every_state_byte,
    .findings = true,
};

const Relation kNixlState{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_sends(args, actual, false); },
    .compared_with = every_state_byte,
    .findings = true,
};

}  // namespace tpcheck::conform
