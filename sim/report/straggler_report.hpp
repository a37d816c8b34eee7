// The slow-rank section of a step report (DDP or sharded): every rank's speed, its own
// compute and its waiting in step 0, and with jitter the step times over the drawn steps.
#pragma once

#include <cstdint>
#include <ostream>

#include "sim/report/table_model.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim {

// Text: a heading line, the ranks worth a line (every slow rank, at most 16, slowest first,
// and one rank at speed 1 for the others) and, with jitter, the step statistics.
void write_stragglers(std::ostream& out, const StragglerResult& s, double jitter_sigma, std::uint64_t seed);
// JSON: every rank and every step.
[[nodiscard]] Json stragglers_json(const StragglerResult& s, double jitter_sigma, std::uint64_t seed);

}  // namespace collsim
