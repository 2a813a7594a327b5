// The calling thread's walk (invariants.hpp): a thread-local, so the sweep's
// threads keep the default (walk everything) whatever a fuzz driver sets.
#include "tpcheck/invariants.hpp"

namespace tpcheck::inv {
namespace {

Walk& walk_of_this_thread() {
  thread_local Walk walk;
  return walk;
}

}  // namespace

const Walk& current_walk() { return walk_of_this_thread(); }

ScopedWalk::ScopedWalk(Walk walk) : saved_(walk_of_this_thread()) { walk_of_this_thread() = walk; }

ScopedWalk::~ScopedWalk() { walk_of_this_thread() = saved_; }

}  // namespace tpcheck::inv
