// Parameter-server all-reduce: every worker sends its whole buffer S to the server
// (rank 0), which reduces and then sends S back to every worker.
#pragma once

#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule parameter_server_allreduce(const Collective& c);

}  // namespace collsim
