// The manual's tables, as Markdown, from what tpcheck itself knows: its
// commands, the invariant registry and the conform profiles. `tpcheck docs`
// prints them; scripts/update-docs writes them into README.md and docs/, and
// the `docs` tests fail when a page holds other text.
#pragma once

#include <ostream>
#include <string>

#include "tpcheck/registry.hpp"

namespace tpcheck::cli {

// "by Z3", "stated, not settled", "not provable".
const char* proof_status_text(const inv::Proof& proof);

void write_commands_table(std::ostream& out);
// The command's --help as a fenced code block; false for an unknown command.
bool write_usage(std::ostream& out, const std::string& command);
void write_invariants_table(std::ostream& out);
// What `tpcheck prove` proves, for which inputs (also `tpcheck prove --list`).
void write_proof_table(std::ostream& out);
void write_profiles_table(std::ostream& out);
// How each function of the profile is found, called and compared; false for
// an unknown profile.
bool write_profile_table(std::ostream& out, const std::string& profile);

}  // namespace tpcheck::cli
