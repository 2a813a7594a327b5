// SGLang's profile in conform's table of profiles (profile.hpp's profiles()),
// and how SGLang writes its tests (--write-tests): unittest.TestCase classes,
// each file registered with SGLang's CI (the CPU suite of its unit tests)
// before its imports, and a __main__ block (CI runs `python3 FILE`).
#include "sglang.hpp"
#include "tpcheck/conform/written.hpp"

namespace tpcheck::conform {
namespace {

const std::string kDisaggregation = "sglang.srt.disaggregation";

const TestConventions kSglangTests{
    .framework = TestConventions::Framework::Unittest,
    .registration_module = {"from sglang.test.ci.ci_register import register_cpu_ci", "",
                            "register_cpu_ci(est_time=2, suite=\"base-a-test-cpu\")"},
    .registration_source = {"try:  # SGLang's CI registry, where SGLang is installed",
                            "    from sglang.test.ci.ci_register import register_cpu_ci",
                            "except ImportError:", "    pass", "else:",
                            "    register_cpu_ci(est_time=2, suite=\"base-a-test-cpu\")"},
    .modules = {{"CommonKVManager", kDisaggregation + ".common.conn"},
                {"compute_head_slice_params", kDisaggregation + ".common.staging_buffer"},
                {"compute_staging_layout", kDisaggregation + ".common.staging_buffer"},
                {"MoriKVManager", kDisaggregation + ".mori.conn"},
                {"MooncakeKVManager", kDisaggregation + ".mooncake.conn"},
                {"NixlKVManager", kDisaggregation + ".nixl.conn"},
                {"expand_page_indices_for_slice", kDisaggregation + ".nixl.conn"}},
};

}  // namespace

std::vector<Profile> sglang_profiles() {
  return {
      {.name = "sglang",
       .usage = {"SGLang's rank resolver, head slices, the bytes its Mooncake and NIXL",
                 "transfers move, and hybrid models' state slices (common/conn.py",
                 "common/staging_buffer.py mooncake/conn.py nixl/conn.py mori/conn.py utils.py",
                 "of one commit; files are told apart by content)"},
       .bindings = [](const ProfileOptions& options) { return sglang_bindings(options); },
       .kinds = sglang_kinds,
       .tests = &kSglangTests},
  };
}

}  // namespace tpcheck::conform
