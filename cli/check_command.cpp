// `tpcheck check`: before any request is routed, does each connector accept
// this sizing, and do the deployment's ports and hosts work out?
#include <iostream>

#include "commands.hpp"
#include "options.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kCheckUsage =
    "usage: tpcheck check --prefill-tp P --decode-tp D (--kv-heads H | --mla) [--connector NAME]...\n"
    "                     [--dp-size N --base-port B] [--prefill-hosts N] [--decode-hosts N] [--json]\n"
    "  Says for each connector (moriio, nixl, mooncake, general; default all) whether it accepts the\n"
    "  sizing, or the exact error it would raise; with --dp-size/--base-port, whether every worker's\n"
    "  port fits under 65535; with --*-hosts, whether the ranks spread over the hosts.\n"
    "  Exit 0 when every check accepts, 1 when one rejects, 2 on a usage error.\n";

struct Check {
  std::string name;
  Outcome<None> outcome;
};

std::vector<Check> run_checks(const SizingOptions& o) {
  std::vector<Check> checks;
  const std::vector<Connector> connectors =
      o.connectors.empty() ? std::vector<Connector>(kConnectors.begin(), kConnectors.end()) : o.connectors;
  for (const Connector c : connectors) {
    checks.push_back({std::string(connector_name(c)), sizing_accepted(c, o.prefill_tp, o.decode_tp, o.kv_heads, o.mla)});
  }
  if (o.dp_size) {
    checks.push_back({"prefill ports", port_range(*o.base_port, *o.dp_size, o.prefill_tp)});
    checks.push_back({"decode ports", port_range(*o.base_port, *o.dp_size, o.decode_tp)});
  }
  // host_index fails the same way for every rank of an engine: ask for the last.
  const auto hosts_check = [](const BigInt& tp, const BigInt& hosts) -> Outcome<None> {
    const Outcome<BigInt> last = host_index(BigInt(tp - 1), tp, hosts);
    if (!last.ok()) return last.failure();
    return None{};
  };
  if (o.prefill_hosts) checks.push_back({"prefill hosts", hosts_check(o.prefill_tp, *o.prefill_hosts)});
  if (o.decode_hosts) checks.push_back({"decode hosts", hosts_check(o.decode_tp, *o.decode_hosts)});
  return checks;
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  const auto parsed = parse_sizing_options(SizingCommand::Check, args);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "tpcheck check: " << *error << "\n";
    return 2;
  }
  const SizingOptions& o = std::get<SizingOptions>(parsed);
  if (o.help) {
    std::cout << kCheckUsage;
    return 0;
  }
  const std::vector<Check> checks = run_checks(o);
  std::size_t rejected = 0;
  for (const Check& c : checks) rejected += c.outcome.ok() ? 0 : 1;
  if (o.json) {
    std::cout << "{\"prefill_tp\": " << render(o.prefill_tp) << ", \"decode_tp\": " << render(o.decode_tp)
              << ", \"kv_heads\": " << (o.mla ? "null" : render(o.kv_heads)) << ", \"mla\": " << (o.mla ? "true" : "false")
              << ", \"checks\": [";
    for (std::size_t i = 0; i < checks.size(); ++i) {
      std::cout << (i ? ", " : "") << "{\"name\": " << json_string(checks[i].name)
                << ", \"accepts\": " << (checks[i].outcome.ok() ? "true" : "false") << ", \"error\": "
                << (checks[i].outcome.ok() ? "null" : json_string(render(checks[i].outcome.failure()))) << "}";
    }
    std::cout << "], \"rejected\": " << rejected << "}\n";
  } else {
    std::cout << "sizing: prefill TP " << render(o.prefill_tp) << ", decode TP " << render(o.decode_tp) << ", "
              << (o.mla ? std::string("MLA") : render(o.kv_heads) + " KV heads") << "\n";
    for (const Check& c : checks) {
      std::cout << "  " << c.name << ": " << (c.outcome.ok() ? "accepts" : "rejects: " + render(c.outcome.failure())) << "\n";
    }
    std::cout << "check: " << checks.size() << " checks, " << rejected << " rejected\n";
  }
  return rejected == 0 ? 0 : 1;
}

}  // namespace tpcheck::cli
