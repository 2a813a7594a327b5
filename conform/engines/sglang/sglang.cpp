// SGLang's profile in conform's table of profiles (profile.hpp's profiles()).
#include "sglang.hpp"

namespace tpcheck::conform {

std::vector<Profile> sglang_profiles() {
  return {
      {.name = "sglang",
       .usage = {"SGLang's rank resolver, head slices, the bytes its Mooncake and NIXL",
                 "transfers move, and hybrid models' state slices (common/conn.py",
                 "common/staging_buffer.py mooncake/conn.py nixl/conn.py mori/conn.py utils.py",
                 "of one commit; files are told apart by content)"},
       .bindings = [](const ProfileOptions& options) { return sglang_bindings(options); },
       .kinds = sglang_kinds},
  };
}

}  // namespace tpcheck::conform
