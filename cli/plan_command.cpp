// `tpcheck plan`: the transfer plan of a sizing. For each decode rank, which
// heads it copies from which prefill rank and where they sit in both pages;
// for each prefill rank, how many decode ranks read from it (the completions
// it must wait for) under the general plan and under MoRIIO's single source.
#include <iostream>

#include "commands.hpp"
#include "head_source.hpp"
#include "options.hpp"
#include "stage_source.hpp"
#include "state_plan_text.hpp"
#include "tpcheck/preflight/output_file.hpp"
#include "tpcheck/preflight/pictures.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kPlanUsage =
    "usage: tpcheck plan --prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE)\n"
    "                    [--decode-rank d] [--bytes-per-head B] [--svg FILE] [STAGES] [STATE]\n"
    "                    [--state-bytes ds|sd|sglang] [--json]\n"
    "  STAGES: [--prefill-pp-layers a,b,... | --prefill-pp S] [--decode-pp-layers a,b,... | --decode-pp S]\n"
    "          [--prefill-adp] [--decode-adp]\n"
    "  STATE:  [--mamba2 H,PH,G,N | --gdn HK,DK,HV,DV | --kda H,DH | --mamba1 I,N] [--conv-kernel K]\n"
    "          [--conv-window L | --num-spec S] [--conv-state-bytes B] [--ssm-state-bytes B]\n"
    "          [--conv-layout ds|sd]   (each of the last five also as --prefill-... and --decode-...)\n"
    "  Prints each decode rank's copies (heads, source prefill rank, offsets in both pages, in\n"
    "  heads or with --bytes-per-head in bytes) and each prefill rank's readers. --svg draws the\n"
    "  whole plan (a summary past 16 ranks a side). With STAGES (a TensorRT-LLM deployment: the\n"
    "  layers of each pipeline stage, attention DP), each decode rank of each stage, the layers of\n"
    "  each copy and the prefill ranks as global ranks (stage * TP + TP rank), and for each prefill\n"
    "  rank the decode ranks it serves; --decode-rank d picks TP rank d in every stage.\n"
    "  --model-config reads the KV heads, MLA and num_hidden_layers from a Hugging Face config.json, and\n"
    "  a hybrid model's recurrent state. For a recurrent state, each decode rank's state copies beside\n"
    "  its heads (segment, logical range, source rank, units on both sides; --state-bytes adds the byte\n"
    "  runs in vLLM's DS or SD page or SGLang's slots) and the decode ranks each prefill rank serves;\n"
    "  --svg draws the segments under each page.\n"
    "  Exit 0 with a plan, 1 when the model rejects the sizing, 2 on a usage error.\n";

constexpr std::int64_t kMaxRanksPrinted = 1024;

struct Layout {
  BigInt unit;  // bytes per offset unit: 1 head, or --bytes-per-head
  std::string name;
};

std::string text_copy(const Copy<BigInt>& c, const Span<BigInt>& source_page, const Span<BigInt>& own, const Layout& u) {
  return "  heads [" + render(c.lo) + ", " + render(c.hi) + ") from prefill rank " + render(c.p) + ": " + u.name + " " +
         render(BigInt((c.lo - source_page.first) * u.unit)) + ".." + render(BigInt((c.hi - source_page.first) * u.unit)) +
         " of its page to " + u.name + " " + render(BigInt((c.lo - own.first) * u.unit)) + ".." +
         render(BigInt((c.hi - own.first) * u.unit)) + " of this page\n";
}

std::string json_copy(const Copy<BigInt>& c, const Span<BigInt>& source_page, const Span<BigInt>& own, const Layout& u) {
  return "{\"prefill_rank\": " + render(c.p) + ", \"heads\": [" + render(c.lo) + ", " + render(c.hi) +
         "], \"source_offset\": " + render(BigInt((c.lo - source_page.first) * u.unit)) +
         ", \"dest_offset\": " + render(BigInt((c.lo - own.first) * u.unit)) +
         ", \"length\": " + render(BigInt((c.hi - c.lo) * u.unit)) + "}";
}

// The heads a rank of a side holds (all of them under attention DP).
Span<BigInt> own_heads(const BigInt& rank, const BigInt& T, bool adp, const BigInt& heads_total) {
  return adp ? Span<BigInt>{0, heads_total} : heads(rank, T, heads_total).value();
}

std::string global_rank_text(const BigInt& global, const BigInt& T) {
  return render(global) + " (stage " + render(BigInt(global / T)) + ", TP rank " + render(BigInt(global % T)) + ")";
}

// `tpcheck plan` with pipeline stages or attention DP: the stage plan of
// every decode rank of every stage for a request served by prefill DP group 0
// and asked by decode DP group 0 (the others are these, shifted).
int stage_plan_command(const SizingOptions& o, const std::optional<preflight::ModelConfig>& model, const Stages& st,
                       const Layout& unit) {
  const BigInt &P = o.prefill_tp, &D = o.decode_tp;
  const Topology<BigInt> t{P, D, o.kv_heads, o.mla, st.prefill, st.decode, st.adp};
  if (const auto first = stage_plan<BigInt>(0, o.decode_rank.value_or(0), 0, t); !first.ok()) {
    std::cout << "plan: " << render(first.failure()) << "\n";
    return 1;
  }
  const BigInt decode_stages = static_cast<std::int64_t>(st.decode.size()),
               prefill_stages = static_cast<std::int64_t>(st.prefill.size());
  if ((o.decode_rank ? decode_stages : decode_stages * D) > kMaxRanksPrinted) {
    std::cerr << "tpcheck plan: " << render(decode_stages) << " decode stages of TP " << render(D)
              << " have more ranks than plan prints (" << kMaxRanksPrinted << "); pick one with --decode-rank\n";
    return 2;
  }
  const BigInt heads_total = o.mla ? BigInt(1) : o.kv_heads;
  const BigInt P1 = st.adp.prefill ? BigInt(1) : P, D1 = st.adp.decode ? BigInt(1) : D;
  std::string decode_text, decode_json;
  for (BigInt s = 0; s < decode_stages; ++s) {
    for (BigInt d = o.decode_rank.value_or(0); d < (o.decode_rank ? *o.decode_rank + 1 : D); ++d) {
      const std::vector<StageCopy<BigInt>> copies = stage_plan<BigInt>(s, d, 0, t).value();
      const LayerRange<BigInt> layers = stage_layer_range<BigInt>(PpSide::Decode, s, st.decode).value();
      const Span<BigInt> own = own_heads(d % D1, D1, st.adp.decode, heads_total);
      const std::string range = "[" + render(layers.first) + ", " + render(layers.end) + ")";
      // Without stages given every rank holds every layer: the text leaves layers out.
      const std::string of_layers = st.pipeline ? " of layers " + range : "";
      decode_text += "decode rank " + global_rank_text(s * D + d, D) + " holds heads [" + render(own.first) + ", " +
                     render(own.end) + ")" + of_layers + ":\n";
      decode_json += std::string(decode_json.empty() ? "" : ", ") + "{\"rank\": " + render(BigInt(s * D + d)) +
                     ", \"stage\": " + render(s) + ", \"tp_rank\": " + render(d) + ", \"heads\": [" +
                     render(own.first) + ", " + render(own.end) + "], \"layers\": [" + render(layers.first) + ", " +
                     render(layers.end) + "], \"copies\": [";
      for (std::size_t i = 0; i < copies.size(); ++i) {
        const StageCopy<BigInt>& c = copies[i];
        const BigInt p = c.source % P;
        const Span<BigInt> page = own_heads(p % P1, P1, st.adp.prefill, heads_total);
        const BigInt from = (c.lo - page.first) * unit.unit, to = (c.lo - own.first) * unit.unit;
        const BigInt length = (c.hi - c.lo) * unit.unit;
        const std::string copy_layers =
            st.pipeline ? " of layers [" + render(c.layers.first) + ", " + render(c.layers.end) + ")" : "";
        decode_text += "  heads [" + render(c.lo) + ", " + render(c.hi) + ")" + copy_layers + " from prefill rank " +
                       global_rank_text(c.source, P) + ": " +
                       unit.name + " " + render(from) + ".." + render(BigInt(from + length)) + " of its page to " +
                       unit.name + " " + render(to) + ".." + render(BigInt(to + length)) + " of this page\n";
        decode_json += std::string(i ? ", " : "") + "{\"prefill_rank\": " + render(c.source) + ", \"stage\": " +
                       render(BigInt(c.source / P)) + ", \"tp_rank\": " + render(p) + ", \"heads\": [" +
                       render(c.lo) + ", " + render(c.hi) + "], \"layers\": [" + render(c.layers.first) + ", " +
                       render(c.layers.end) + "], \"source_offset\": " + render(from) + ", \"dest_offset\": " +
                       render(to) + ", \"length\": " + render(length) + "}";
      }
      decode_json += "]}";
    }
  }
  std::string prefill_text, prefill_json;
  if (prefill_stages * P <= kMaxRanksPrinted) {
    for (BigInt u = 0; u < prefill_stages; ++u) {
      for (BigInt p = 0; p < P; ++p) {
        const Outcome<std::vector<BigInt>> served = stage_served<BigInt>(u, p, 0, t);
        const std::string count = served.ok() ? std::to_string(served.value().size()) : render(served.failure());
        prefill_text += "prefill rank " + global_rank_text(u * P + p, P) + ": serves " + count +
                        (count == "1" ? " decode rank" : " decode ranks") + " (the requests it waits for)\n";
        prefill_json += std::string(prefill_json.empty() ? "" : ", ") + "{\"rank\": " + render(BigInt(u * P + p)) +
                        ", \"stage\": " + render(u) + ", \"tp_rank\": " + render(p) + ", \"serves\": " +
                        (served.ok() ? count : json_string(count)) + "}";
      }
    }
  }
  const std::string request =
      st.adp.prefill || st.adp.decode
          ? "requests: each decode rank's own, served by prefill DP group 0; a prefill rank serves those of decode DP "
            "group 0 (other groups' ranks are these, shifted by the group)\n"
          : "";
  if (o.json) {
    std::cout << "{\"prefill_tp\": " << render(P) << ", \"decode_tp\": " << render(D) << ", "
              << heads_json_fields(o, model) << ", " << stages_json_fields(st) << ", \"unit\": \"" << unit.name
              << "\", \"decode\": [" << decode_json << "], \"prefill\": [" << prefill_json << "]}\n";
  } else {
    if (model) std::cout << model_config_line(o, *model) << "\n";
    std::cout << "plan: prefill TP " << render(P) << ", decode TP " << render(D) << ", " << heads_text(o) << "\n"
              << (st.pipeline ? "pipeline: " + pipeline_line(st) + "\n" : "")
              << "attention DP: " << attention_dp_text(st, P, D) << "\n"
              << request << decode_text << prefill_text;
  }
  return 0;
}

}  // namespace

int plan_command(const std::vector<std::string>& args) {
  auto parsed = parse_sizing_options(SizingCommand::Plan, views_of(args));
  std::optional<preflight::ModelConfig> model;
  std::optional<ResolvedState> state;
  if (const auto done = start_command("plan", parsed, kPlanUsage, model, state)) return *done;
  SizingOptions& o = std::get<SizingOptions>(parsed);
  const BigInt &P = o.prefill_tp, &D = o.decode_tp, &H = o.kv_heads;
  if (o.bytes_per_head && *o.bytes_per_head <= 0) {
    std::cerr << "tpcheck plan: --bytes-per-head must be positive\n";
    return 2;
  }
  if (o.state_bytes && !state) {
    std::cerr << "tpcheck plan: --state-bytes prints a recurrent state's bytes: the model has none "
                 "(give a --model-config with recurrent layers, or --mamba2, --gdn, --kda or --mamba1)\n";
    return 2;
  }
  if (state && o.stages.any()) {
    std::cerr << "tpcheck plan: pipeline stages and attention DP are not modelled for a recurrent state "
                 "(leave them out to plan one stage pair)\n";
    return 2;
  }
  const Layout unit = o.bytes_per_head ? Layout{*o.bytes_per_head, "bytes"} : Layout{1, "heads"};
  if (o.stages.any()) {
    if (o.svg) {
      std::cerr << "tpcheck plan: --svg draws a tensor-parallel plan: it does not draw pipeline stages or "
                   "attention DP (leave those out to draw the plan of one stage pair)\n";
      return 2;
    }
    auto resolved = resolve_stages(o.stages, o, model);
    if (const auto* error = std::get_if<std::string>(&resolved)) {
      std::cerr << "tpcheck plan: " << *error << "\n";
      return 2;
    }
    return stage_plan_command(o, model, std::get<Stages>(resolved), unit);
  }
  // The model validates the sizing; rank 0 stands for every rank here.
  if (o.attention) {
    if (const auto first = plan(o.decode_rank.value_or(0), P, D, H, o.mla); !first.ok()) {
      std::cout << "plan: " << render(first.failure()) << "\n";
      return 1;
    }
  }
  if (state) {
    StateDims<BigInt> dims;
    dims.family = state->state.dims.family;
    for (std::size_t i = 0; i < kMaxStateDims; ++i) dims.v[i] = state->state.dims.v[i];
    if (const auto first = state_plan<BigInt>(o.decode_rank.value_or(0), P, D, dims); !first.ok()) {
      std::cout << "plan: state: " << render(first.failure()) << "\n";
      return 1;
    }
  }
  // The options bound the sizes to kMaxOperatorSize, and the model checked the rank: they fit int64.
  const std::int64_t Pi = static_cast<std::int64_t>(P), Di = static_cast<std::int64_t>(D);
  std::optional<StateByteSides> state_bytes;
  if (o.state_bytes) {
    auto sides = state_byte_sides(state->state, *o.state_bytes, Pi, Di);
    if (const auto* error = std::get_if<std::string>(&sides)) {
      std::cout << "plan: " << *error << "\n";
      return 1;
    }
    state_bytes = std::get<StateByteSides>(std::move(sides));
  }
  std::vector<BigInt> decode_ranks;
  if (o.decode_rank) {
    decode_ranks.push_back(*o.decode_rank);
  } else if (D > kMaxRanksPrinted) {
    std::cerr << "tpcheck plan: decode TP " << render(D) << " has more ranks than plan prints (" << kMaxRanksPrinted
              << "); pick one with --decode-rank\n";
    return 2;
  } else {
    for (BigInt d = 0; d < D; ++d) decode_ranks.push_back(d);
  }
  std::string picture_note;
  if (o.svg) {
    const preflight::ModelShape shape{attention_shape(o), state ? std::optional(state->state) : std::nullopt};
    const preflight::PlanPicture picture = preflight::plan_svg(Pi, Di, shape, heads_text(o));
    if (const auto error = preflight::write_file(*o.svg, picture.svg)) {
      std::cerr << "tpcheck plan: --svg " << *error << "\n";
      return 2;
    }
    picture_note = "svg: wrote " + *o.svg +
                   (picture.summary ? ", a summary: more than " + std::to_string(preflight::kMaxDrawnRanks) +
                                          " ranks on a side are too many to draw one by one"
                                    : "") +
                   "\n";
  }
  const BigInt heads_total = o.mla ? BigInt(1) : H;
  std::string decode_text, decode_json, state_decode_json;
  for (const BigInt& d : decode_ranks) {
    const std::int64_t di = static_cast<std::int64_t>(d);
    if (!o.attention) {
      decode_text += "decode rank " + render(d) + ":\n";
    } else {
      const Plan<BigInt> copies = plan(d, P, D, H, o.mla).value();
      const Span<BigInt> own = heads(d, D, heads_total).value();
      decode_text += "decode rank " + render(d) + " holds heads [" + render(own.first) + ", " + render(own.end) + "):\n";
      decode_json += std::string(decode_json.empty() ? "" : ", ") + "{\"rank\": " + render(d) + ", \"heads\": [" +
                     render(own.first) + ", " + render(own.end) + "], \"copies\": [";
      for (std::size_t i = 0; i < copies.size(); ++i) {
        const Span<BigInt> page = heads(copies[i].p, P, heads_total).value();
        decode_text += text_copy(copies[i], page, own, unit);
        decode_json += (i ? ", " : "") + json_copy(copies[i], page, own, unit);
      }
      decode_json += "]}";
    }
    if (state) {
      decode_text += state_plan_text(state->state, Pi, Di, di, state_bytes);
      state_decode_json += std::string(state_decode_json.empty() ? "" : ", ") +
                           state_plan_json(state->state, Pi, Di, di, state_bytes);
    }
  }
  std::string prefill_text, prefill_json, state_prefill_json;
  if (P <= kMaxRanksPrinted) {
    for (BigInt p = 0; p < P; ++p) {
      const std::int64_t pi = static_cast<std::int64_t>(p);
      const std::string served = state ? state_served_text(state->state, Pi, Di, pi) : "";
      if (state) {
        state_prefill_json += std::string(state_prefill_json.empty() ? "" : ", ") + "{\"rank\": " + render(p) +
                              ", \"serves\": " + state_served_json(state->state, Pi, Di, pi) + "}";
      }
      if (!o.attention) {
        prefill_text += "prefill rank " + render(p) + ": " + served + "\n";
        continue;
      }
      const Outcome<BigInt> general = readers(p, P, D, H, o.mla);
      const Outcome<BigInt> single = single_readers(p, P, D);
      prefill_text += "prefill rank " + render(p) + ": " + render(general) + " readers under the general plan; " +
                      (single.ok() ? render(single.value()) + " under MoRIIO's single source" : "MoRIIO: " + render(single.failure())) +
                      (state ? "; " + served : "") + "\n";
      prefill_json += std::string(prefill_json.empty() ? "" : ", ") + "{\"rank\": " + render(p) +
                      ", \"readers\": " + render(general) + ", \"single_readers\": " +
                      (single.ok() ? render(single.value()) : json_string(render(single.failure()))) + "}";
    }
  }
  if (o.json) {
    std::cout << "{\"prefill_tp\": " << render(P) << ", \"decode_tp\": " << render(D) << ", "
              << heads_json_fields(o, model) << ", \"unit\": \""
              << unit.name << "\", \"decode\": [" << decode_json << "], \"prefill\": [" << prefill_json << "], \"state\": ";
    if (state) {
      std::cout << "{\"model\": " << state_json(*state) << ", \"bytes\": "
                << (o.state_bytes ? json_string(*o.state_bytes) : std::string("null")) << ", \"decode\": ["
                << state_decode_json << "], \"prefill\": [" << state_prefill_json << "]}";
    } else {
      std::cout << "null";
    }
    std::cout << "}\n";
  } else {
    if (model) std::cout << model_config_line(o, *model) << "\n";
    if (state) {
      std::cout << state->model_line << "\n" << (state->layers_line ? *state->layers_line + "\n" : "")
                << state->sides_line << "\n";
    }
    std::cout << "plan: prefill TP " << render(P) << ", decode TP " << render(D) << ", " << heads_text(o)
              << (state_bytes ? ", state bytes under " + state_bytes->layout : "") << "\n"
              << decode_text << prefill_text << picture_note;
  }
  return 0;
}

}  // namespace tpcheck::cli
