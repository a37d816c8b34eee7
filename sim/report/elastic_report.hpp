// The elastic-run section of a step report (DDP or sharded): each membership's step and
// proved schedules, each rebuild's costs (rendezvous, communicator init, state broadcast,
// re-shard) and the run's total.
#pragma once

#include <ostream>

#include "sim/report/table_model.hpp"
#include "sim/train/elastic.hpp"

namespace collsim {

void write_elastic(std::ostream& out, const ElasticResult& e);
[[nodiscard]] Json elastic_json(const ElasticResult& e);

}  // namespace collsim
