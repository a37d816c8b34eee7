// Proves a schedule correct without numbers: each rank holds, per chunk, the set of
// ranks whose contribution it contains. Reduce unions two disjoint sets (a contribution
// counted twice is an error), copy overwrites. At the end every rank that must hold a
// chunk holds exactly the expected contributions. Transfers run in id order, which the
// Schedule guarantees is a topological order; a transfer must directly depend on the
// transfer that last wrote the chunk it reads (so the DAG, not id order, orders them),
// or else it is taken as concurrent with that write and reads the value before it (an
// exchange), which needs a direct dependency on the write before that one (or none).
#pragma once

#include <string>

#include "sim/algo/schedule.hpp"

namespace collsim {

struct Verification {
  bool ok = true;
  std::string error;  // first problem found, empty when ok
  std::size_t transfers = 0;
};

[[nodiscard]] Verification verify_schedule(const Schedule& schedule);

}  // namespace collsim
