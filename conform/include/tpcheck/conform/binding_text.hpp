// A binding as the manual shows it (`tpcheck docs profile NAME`, Markdown):
// where the child looks for the definition, how it calls it, and what its
// outcome is compared with. Read from the binding itself, so the manual's
// tables follow the profiles.
#pragma once

#include <string>

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

// "`get_moriio_remote_tp_rank`", or "method `handshake_target_ranks` or
// `get_target_remote_ranks` of `TransferTopology` or `TpKVTopology`".
std::string looked_for(const Binding& binding);

// "`(r, L, R)`", or the instance's attributes and the arguments by name.
std::string called_as(const Binding& binding);

// "`remote_rank(r, L, R)`: value or exact error": what its relation says
// (Relation::compared_with).
std::string compared_with(const Binding& binding);

// "remote_rank(r, L, R)": the model operation, called with the case
// parameters its arguments come from.
std::string model_call(const Binding& binding);

}  // namespace tpcheck::conform
