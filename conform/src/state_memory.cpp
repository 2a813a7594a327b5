// SPEC §16.7's synthetic state memory (state_memory.hpp).
#include "tpcheck/conform/state_memory.hpp"

#include <stdexcept>

#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform::state {
namespace {

using bytes::Side;
using U = units_t<std::int64_t>;

std::uint64_t u64(const U& v) { return static_cast<std::uint64_t>(v); }

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

SideSpec sglang_pool(StateFamily family) {
  SideSpec s;
  s.order = family == StateFamily::Kda ? ConvOrder::StateFirst : ConvOrder::DimFirst;
  return s;
}

SideSpec slice_units() {
  SideSpec s;
  s.rows = 1;
  s.e_conv = 1;
  s.e_ssm = 1;
  s.units = true;
  return s;
}

std::uint64_t vllm_page_stride(std::uint64_t state_bytes) { return (state_bytes / 64 + 1) * 64 + 64; }

Outcome<SideBytes<std::int64_t>> state_side(const StateConfig& config, std::int64_t T, const SideSpec& spec) {
  const auto own = state_ownership<std::int64_t>(T, config.dims);
  if (!own.ok()) return own.failure();
  const auto exact = side_bytes<std::int64_t>(own.value(), spec.order, spec.container, spec.rows, spec.e_conv, spec.e_ssm);
  if (!exact.ok() || spec.container != StateContainer::VllmPage) return exact;
  return side_bytes<std::int64_t>(own.value(), spec.order, spec.container, spec.rows, spec.e_conv, spec.e_ssm,
                                  U(vllm_page_stride(u64(exact.value().page_bytes))));
}

std::vector<StateEntry> StateLayout::entries(StateContainer container) const {
  std::vector<StateEntry> out;
  if (container == StateContainer::VllmPage) {
    for (const std::int64_t layer : layers) out.push_back({layer, StatePart::Conv});
    return out;
  }
  for (const StatePart tensor : {StatePart::Conv, StatePart::Ssm}) {
    for (const std::int64_t layer : layers) out.push_back({layer, tensor});
  }
  return out;
}

std::string StateLayout::json() const {
  auto u = [](std::uint64_t v) { return std::to_string(v); };
  return "{\"layers\": " + list(layers) + ", \"slots\": {\"P\": " + std::to_string(prefill_slots) +
         ", \"D\": " + std::to_string(decode_slots) + "}, \"slot\": {\"P\": " + std::to_string(prefill_slot) +
         ", \"D\": " + std::to_string(decode_slot) + "}, \"base\": {\"P\": " + u(prefill_base) + ", \"D\": " +
         u(decode_base) + "}, \"rank_stride\": " + u(rank_stride) + ", \"region_stride\": " + u(region_stride) + "}";
}

std::string sides_json(const std::vector<std::size_t>& configs, const std::function<SideSpec(StateFamily)>& spec) {
  std::string out = "{";
  for (const std::size_t c : configs) {
    const StateConfig& config = state_configs().at(c);
    const SideSpec s = spec(config.dims.family);
    for (std::int64_t T = 1; T <= 1024; ++T) {
      const auto side = state_side(config, T, s);
      if (!side.ok()) continue;
      const auto& b = side.value();
      std::vector<std::int64_t> full, local;
      for (const auto& seg : b.state.segments()) {
        full.push_back(static_cast<std::int64_t>(seg.full));
        local.push_back(static_cast<std::int64_t>(seg.width));
      }
      out += std::string(out.size() > 1 ? ", " : "") + "\"" + std::to_string(c) + "," + std::to_string(T) +
             "\": {\"c_loc\": " + std::to_string(u64(b.state.c_loc)) + ", \"h_loc\": " + std::to_string(b.state.h_loc) +
             ", \"head_elements\": " + std::to_string(u64(b.state.head_elements)) + ", \"rows\": " +
             std::to_string(b.rows) + ", \"conv_bytes\": " + std::to_string(u64(b.conv_bytes)) + ", \"ssm_bytes\": " +
             std::to_string(u64(b.ssm_bytes)) + ", \"page_bytes\": " + std::to_string(u64(b.page_bytes)) +
             ", \"order\": \"" + std::string(conv_order_name(b.order)) + "\", \"widths\": " + list(full) +
             ", \"local_widths\": " + list(local) + "}";
    }
  }
  return out + "}";
}

StateMemory::StateMemory(const StateLayout& layout, const StateConfig& config, std::int64_t P, std::int64_t D,
                         const SideSpec& prefill, const SideSpec& decode)
    : config_(config), prefill_spec_(prefill), decode_spec_(decode), layout_(layout) {
  if (prefill.container != decode.container || prefill.units != decode.units) {
    throw std::invalid_argument("state memory: both sides keep their state alike");
  }
  const auto p_side = state_side(config, P, prefill);
  const auto d_side = state_side(config, D, decode);
  if (!p_side.ok() || !d_side.ok()) throw std::invalid_argument("state memory: a side does not hold the state");
  prefill_ = p_side.value();
  decode_ = d_side.value();
  entries_ = layout.entries(prefill.container);
  for (const Side s : {Side::Prefill, Side::Decode}) {
    const bool pre = s == Side::Prefill;
    const SideBytes<std::int64_t>& b = pre ? prefill_ : decode_;
    for (std::int64_t r = 0; r < (pre ? P : D); ++r) {
      bytes::RankMemory m;
      m.side = s;
      m.rank = r;
      m.slots = static_cast<std::uint64_t>(pre ? layout.prefill_slots : layout.decode_slots);
      m.request = {pre ? layout.prefill_slot : layout.decode_slot};
      m.slot_word = prefill.container == StateContainer::VllmPage ? "block" : "slot";
      const std::uint64_t base = (pre ? layout.prefill_base : layout.decode_base) + static_cast<std::uint64_t>(r) * layout.rank_stride;
      for (std::size_t e = 0; e < entries_.size(); ++e) {
        m.region_bases.push_back(base + e * layout.region_stride);
        m.item_lengths.push_back(u64(entry_bytes(b, entries_[e].tensor)));
      }
      map_.add(std::move(m));
    }
  }
}

std::int64_t StateMemory::request_slot(Side side) const {
  return side == Side::Prefill ? layout_.prefill_slot : layout_.decode_slot;
}

std::uint64_t StateMemory::unit_bytes(std::int64_t region) const {
  if (entry(region).tensor == StatePart::Ssm) return u64(prefill_.state.head_elements) * static_cast<std::uint64_t>(prefill_.e_ssm);
  return static_cast<std::uint64_t>(prefill_.rows * prefill_.e_conv);
}

std::uint64_t StateMemory::request_address(Side side, std::int64_t rank, std::int64_t region, std::int64_t offset) const {
  const bytes::RankMemory* m = map_.rank(side, rank);
  if (m == nullptr) throw std::invalid_argument("state memory: no such rank");
  const std::uint64_t item = m->item_length(region);
  // Unsigned arithmetic: an offset before the slot wraps as the address would.
  return m->region_bases.at(static_cast<std::size_t>(region)) + static_cast<std::uint64_t>(request_slot(side)) * item +
         static_cast<std::uint64_t>(offset);
}

std::string StateMemory::entry_name(std::int64_t region) const {
  const StateEntry& e = entry(region);
  if (prefill_spec_.container == StateContainer::VllmPage) return "layer " + std::to_string(e.layer);
  return std::string(e.tensor == StatePart::Ssm ? "temporal" : "conv") + " layer " + std::to_string(e.layer);
}

std::string StateMemory::what(const StateByte<std::int64_t>& b) const {
  const bool units = prefill_spec_.units;
  switch (b.part) {
    case StatePart::Padding: return "padding byte " + std::to_string(u64(b.unit));
    case StatePart::Ssm:
      return "ssm head " + std::to_string(u64(b.unit)) +
             (units ? "" : " element " + std::to_string(u64(b.position)) + " byte " + std::to_string(b.byte));
    case StatePart::Conv: break;
  }
  const auto& seg = prefill_.state.conv[b.segment];
  return std::string(seg.name) + " channel " + std::to_string(u64(b.unit)) +
         (units ? "" : " row " + std::to_string(u64(b.position)) + " byte " + std::to_string(b.byte));
}

std::string StateMemory::describe(const bytes::RankMemory& rank, std::int64_t region, std::uint64_t offset) const {
  const SideBytes<std::int64_t>& b = side(rank.side);
  const std::uint64_t item = rank.item_length(region);
  const StateRun<std::int64_t> run = entry_run_at(b, rank.rank, entry(region).tensor, U(offset % item));
  return entry_name(region) + " " + rank.slot_word + " " + std::to_string(offset / item) + " " + what(run.first);
}

std::string StateMemory::amount(std::int64_t region, std::uint64_t n) const {
  if (!prefill_spec_.units) return bytes::bytes_text(n);
  const bool heads = entry(region).tensor == StatePart::Ssm;
  const std::uint64_t units = heads ? n / unit_bytes(region) : n;
  return std::to_string(units) + (heads ? (units == 1 ? " head" : " heads") : (units == 1 ? " channel" : " channels"));
}

}  // namespace tpcheck::conform::state
