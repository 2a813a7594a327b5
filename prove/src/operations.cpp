// The table of encoded operations, and their outcomes printed as the model's.
#include "tpcheck/prove/operations.hpp"

#include "tpcheck/render.hpp"

namespace tpcheck::prove {
namespace {

using Args = std::vector<z3::expr>;

OperationTerm plain(OutcomeTerm o) { return {std::move(o), nullptr}; }

EncodedOperation sizing(std::string_view name, ConnectorTerm connector) {
  return {name, {"P", "D", "H", "MLA"}, Shape::None, false, [connector](const Encoding& e, const Args& a) {
            return plain(e.sizing_accepted(connector, a[0], a[1], a[2], a[3]));
          }};
}

// §16.1-16.2: F_state_shape, F_segments, F_state_plan and F_state_served of
// each family, its DIMS after the sizes and rank, as `tpcheck eval` takes them.
void add_state_operations(std::vector<EncodedOperation>& ops) {
  for (const StateFamily f : kStateFamilies) {
    const std::span<const std::string, 4> names = state_operation_names(f);
    const auto params = [f](std::vector<std::string_view> first) {
      for (const std::string_view dim : state_dim_names(f)) first.push_back(dim);
      return first;
    };
    const auto dims = [f](const Args& a, std::size_t from) {
      return std::vector<z3::expr>(a.begin() + static_cast<std::ptrdiff_t>(from),
                                   a.begin() + static_cast<std::ptrdiff_t>(from + state_dim_count(f)));
    };
    const std::vector<std::string_view>& segments = state_segment_names(f);
    ops.push_back({names[0], params({"T"}), Shape::Tuple, true,
                   [f, dims](const Encoding& e, const Args& a) { return plain(e.state_shape(f, a[0], dims(a, 1))); }});
    ops.push_back({names[1], params({"r", "T"}), Shape::Segments, true,
                   [f, dims](const Encoding& e, const Args& a) { return e.segments(f, a[0], a[1], dims(a, 2)); },
                   segments});
    ops.push_back({names[2], params({"d", "P", "D"}), Shape::StateCopies, true,
                   [f, dims](const Encoding& e, const Args& a) { return e.state_plan(f, a[0], a[1], a[2], dims(a, 3)); },
                   segments});
    ops.push_back({names[3], params({"p", "P", "D"}), Shape::Ranks, true,
                   [f, dims](const Encoding& e, const Args& a) { return e.state_served(f, a[0], a[1], a[2], dims(a, 3)); }});
  }
  ops.push_back({"state_pairing", {"LP", "LD", "ECP", "ECD", "ESP", "ESD"}, Shape::None, true,
                 [](const Encoding& e, const Args& a) { return plain(e.state_pairing(a[0], a[1], a[2], a[3], a[4], a[5])); }});
}

}  // namespace

const std::vector<EncodedOperation>& encoded_operations() {
  static const std::vector<EncodedOperation> ops = [] {
    std::vector<EncodedOperation> out = {
      {"remote_rank", {"r", "L", "R"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.remote_rank(a[0], a[1], a[2])); }},
      {"general_rank", {"r", "L", "R"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.general_rank(a[0], a[1], a[2])); }},
      {"tp_ratio", {"L", "R"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.tp_ratio(a[0], a[1])); }},
      {"window_span", {"r", "L", "R"}, Shape::Tuple, false,
       [](const Encoding& e, const Args& a) { return plain(e.window_span(a[0], a[1], a[2])); }},
      {"window", {"r", "L", "R"}, Shape::Ranks, true,
       [](const Encoding& e, const Args& a) { return e.window(a[0], a[1], a[2]); }},
      {"head_compatible", {"T", "H"}, Shape::Bool, false,
       [](const Encoding& e, const Args& a) { return plain(e.head_compatible(a[0], a[1])); }},
      {"heads", {"r", "T", "H"}, Shape::Tuple, true,
       [](const Encoding& e, const Args& a) { return plain(e.heads(a[0], a[1], a[2])); }},
      {"holders", {"h", "T", "H"}, Shape::Tuple, false,
       [](const Encoding& e, const Args& a) { return plain(e.holders(a[0], a[1], a[2])); }},
      {"kv_heads_guard", {"L", "R", "H", "MLA"}, Shape::None, true,
       [](const Encoding& e, const Args& a) { return plain(e.kv_heads_guard(a[0], a[1], a[2], a[3])); }},
      {"kv_heads_guard_strict", {"L", "R", "H", "MLA"}, Shape::None, true,
       [](const Encoding& e, const Args& a) { return plain(e.kv_heads_guard_strict(a[0], a[1], a[2], a[3])); }},
      {"plan", {"d", "P", "D", "H", "MLA"}, Shape::Copies, true,
       [](const Encoding& e, const Args& a) { return e.plan(a[0], a[1], a[2], a[3], a[4]); }},
      {"plan_copy_count", {"d", "P", "D", "H", "MLA"}, Shape::Int, false,
       [](const Encoding& e, const Args& a) { return plain(e.plan_copy_count(a[0], a[1], a[2], a[3], a[4])); }},
      {"single_source_plan", {"d", "P", "D", "H", "MLA"}, Shape::Copies, false,
       [](const Encoding& e, const Args& a) { return e.single_source_plan(a[0], a[1], a[2], a[3], a[4]); }},
      {"readers", {"p", "P", "D", "H", "MLA"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.readers(a[0], a[1], a[2], a[3], a[4])); }},
      {"single_readers", {"p", "P", "D"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.single_readers(a[0], a[1], a[2])); }},
      {"whole_block_copy_allowed", {"P", "D", "H", "MLA", "PREFILL_ADP", "DECODE_ADP"}, Shape::Bool, false,
       [](const Encoding& e, const Args& a) {
         return plain(e.whole_block_copy_allowed(a[0], a[1], a[2], a[3], a[4], a[5]));
       }},
      {"port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.port_offset(a[0], a[1], a[2])); }},
      {"host_index", {"q", "T", "HOSTS"}, Shape::Int, true,
       [](const Encoding& e, const Args& a) { return plain(e.host_index(a[0], a[1], a[2])); }},
      {"port_range", {"BASE", "DP_SIZE", "TP_SIZE"}, Shape::None, false,
       [](const Encoding& e, const Args& a) { return plain(e.port_range(a[0], a[1], a[2])); }},
      sizing("sizing_accepted_moriio", ConnectorTerm::MoRIIO),
      sizing("sizing_accepted_nixl", ConnectorTerm::Nixl),
      sizing("sizing_accepted_mooncake", ConnectorTerm::Mooncake),
      sizing("sizing_accepted_general", ConnectorTerm::General),
    };
    add_state_operations(out);
    return out;
  }();
  return ops;
}

const EncodedOperation* encoded_operation(std::string_view name) {
  for (const EncodedOperation& op : encoded_operations()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const EncodedOperation* encoded_operation_of(std::string_view eval_name) {
  constexpr std::string_view kAccepts = "_accepts";
  if (eval_name.size() > kAccepts.size() && eval_name.substr(eval_name.size() - kAccepts.size()) == kAccepts) {
    return encoded_operation("sizing_accepted_" + std::string(eval_name.substr(0, eval_name.size() - kAccepts.size())));
  }
  return encoded_operation(eval_name);
}

std::vector<z3::expr> parameter_constants(z3::context& c, const EncodedOperation& op) {
  std::vector<z3::expr> out;
  for (const std::string_view p : op.params) {
    const std::string name = std::string(op.name) + "." + std::string(p);
    out.push_back(is_flag(p) ? c.bool_const(name.c_str()) : c.int_const(name.c_str()));
  }
  return out;
}

std::optional<BigInt> constant_value(const z3::expr& e) {
  if (e.is_true()) return BigInt(1);
  if (e.is_false()) return BigInt(0);
  std::string digits;
  if (!e.is_int() || !e.is_numeral(digits)) return std::nullopt;
  return parse_decimal(digits);
}

namespace {

// The values of a tuple of terms, or nullopt if one is not constant.
std::optional<std::vector<BigInt>> values_of(const std::vector<z3::expr>& terms, const Evaluator& eval) {
  std::vector<BigInt> out;
  for (const z3::expr& t : terms) {
    auto v = constant_value(eval(t));
    if (!v) return std::nullopt;
    out.push_back(std::move(*v));
  }
  return out;
}

std::string tuple_text(const std::vector<BigInt>& v) {
  std::string out = "(";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + decimal(v[i]);
  return out + ")";
}

// ('x', 8, 16, 0, 0): the first value a segment index, printed as Python's repr of its name.
std::optional<std::string> named_tuple_text(const std::vector<BigInt>& v, const std::vector<std::string_view>& names) {
  if (v.empty() || v[0] < 0 || v[0] >= names.size()) return std::nullopt;
  std::string out = "('" + std::string(names[static_cast<std::size_t>(v[0])]) + "'";
  for (std::size_t i = 1; i < v.size(); ++i) out += ", " + decimal(v[i]);
  return out + ")";
}

}  // namespace

std::optional<std::string> render_outcome(const EncodedOperation& op, const OperationTerm& term, const Evaluator& eval,
                                          std::size_t max_listed) {
  const auto ok = constant_value(eval(term.outcome.ok));
  if (!ok) return std::nullopt;
  if (*ok == 0) {
    const auto id = constant_value(eval(term.outcome.message));
    const auto args = values_of(term.outcome.message_args, eval);
    const MessageInfo* info = id && *id <= 1000 ? message_info(static_cast<int>(*id)) : nullptr;
    if (!info || !args) return std::nullopt;
    return render_failure(*info, *args);
  }
  const auto value = values_of(term.outcome.value, eval);
  if (!value) return std::nullopt;
  switch (op.shape) {
    case Shape::Int: return decimal(value->at(0));
    case Shape::Bool: return render(value->at(0) != 0);
    case Shape::None: return std::string("None");
    case Shape::Tuple: return tuple_text(*value);
    case Shape::Ranks:
    case Shape::Copies:
    case Shape::Segments:
    case Shape::StateCopies: break;
  }
  const BigInt& length = value->at(0);
  std::string out = "[";
  for (BigInt i = 0; i < length; ++i) {
    if (i >= max_listed) return out + ", ...]";
    const auto element = values_of(term.element(term.outcome.ok.ctx().int_val(static_cast<int64_t>(i))), eval);
    if (!element) return std::nullopt;
    std::optional<std::string> text = op.shape == Shape::Ranks    ? decimal(element->at(0))
                                      : op.shape == Shape::Copies ? tuple_text(*element)
                                                                  : named_tuple_text(*element, op.segment_names);
    if (!text) return std::nullopt;
    out += (i == 0 ? "" : ", ") + *text;
  }
  return out + "]";
}

}  // namespace tpcheck::prove
