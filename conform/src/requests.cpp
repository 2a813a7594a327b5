// The requests tpcheck sends its child (protocol.hpp). Apart from the frame
// parser, so that fuzz_conform_protocol links the parser alone, not the
// bindings and grids a request names (libFuzzer scans the coverage counters
// of everything linked after every input).
#include <string>
#include <vector>

#include "tpcheck/conform/protocol.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::conform {

namespace {

std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string binding_json(const Binding& b) {
  const CallShape& c = b.call;
  std::string out = "{\"name\": " + json_string(b.name) + ", \"params\": " + json_strings(b.param_names()) +
                    ", \"functions\": " + json_strings(c.functions) + ", \"classes\": " + json_strings(c.classes) +
                    ", \"methods\": " + json_strings(c.methods) +
                    ", \"instance_argument\": " + json_string(c.instance_argument) +
                    ", \"positional\": " + (c.positional ? "true" : "false") + ", \"render\": " + json_string(c.render) +
                    ", \"driver\": " + (c.driver.empty() ? std::string("null") : c.driver) +
                    ", \"requires\": " + json_strings(c.requires_methods) +
                    ", \"skip_note\": " + json_string(c.skip_note) + ", \"requires_parameter\": " +
                    (c.requires_parameter.name.empty()
                         ? std::string("null")
                         : "{\"name\": " + json_string(c.requires_parameter.name) +
                               ", \"why\": " + json_string(c.requires_parameter.why) + "}") +
                    ", \"attributes\": [";
  for (std::size_t i = 0; i < c.attributes.size(); ++i) {
    const Attribute& a = c.attributes[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
           ", \"if_plain\": " + (a.if_plain ? "true" : "false") + ", \"fallback\": [";
    for (std::size_t k = 0; k < a.fallback.size(); ++k) {
      out += std::string(k ? ", " : "") + "[" + json_string(a.fallback[k].first) + ", " +
             json_string(a.fallback[k].second) + "]";
    }
    out += "]}";
  }
  out += "], \"args\": [";
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    const CallArg& a = c.args[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
           ", \"optional\": " + (a.optional ? "true" : "false") + ", \"when\": " + json_string(a.when) + "}";
  }
  return out + "]}";
}

}  // namespace

std::string load_request(const std::string& mode, const std::vector<std::string>& files,
                         const std::vector<Binding>& bindings) {
  std::string out = "{\"op\": \"load\", \"mode\": " + json_string(mode) + ", \"files\": " + json_strings(files) +
                    ", \"bindings\": [";
  for (std::size_t i = 0; i < bindings.size(); ++i) out += (i ? ", " : "") + binding_json(bindings[i]);
  return out + "]}\n";
}

std::string run_request(std::size_t binding, const std::string& grid_json, std::uint64_t from,
                        std::uint64_t careful_until, std::int64_t mutant) {
  return "{\"op\": \"run\", \"binding\": " + std::to_string(binding) + ", \"from\": " + std::to_string(from) +
         ", \"careful_until\": " + std::to_string(careful_until) +
         (mutant >= 0 ? ", \"mutant\": " + std::to_string(mutant) : std::string()) + ", \"grid\": " + grid_json + "}\n";
}

std::string info_request(const std::string& op, std::size_t binding) {
  return "{\"op\": " + json_string(op) + ", \"binding\": " + std::to_string(binding) + "}\n";
}

}  // namespace tpcheck::conform
