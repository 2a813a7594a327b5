// The report of a conformance run, for people and for machines (--json).
#pragma once

#include <ostream>

#include "tpcheck/conform/run.hpp"

namespace tpcheck::conform {

void print_text(std::ostream& out, const RunReport& report);
void print_json(std::ostream& out, const RunReport& report);

// 0 when no deviation was found, 1 otherwise (2, load errors, is the caller's).
int exit_status(const RunReport& report);

}  // namespace tpcheck::conform
