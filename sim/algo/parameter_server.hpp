// Parameter-server all-reduce. Single: every worker pushes its buffer to the server (the
// root), which reduces and sends the sum back to every worker. Sharded: every rank serves
// 1/N of the buffer (BytePS-style). The buffer is pipelined in slices: the server returns
// slice l as soon as every worker's slice l arrived, so pushes and pulls overlap, and each
// worker's stream to a server sends its slices in order.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule parameter_server_allreduce(const Collective& c, const AlgorithmOptions& opt = {});
[[nodiscard]] Schedule sharded_parameter_server_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kParameterServerAlgorithm;
extern const AlgorithmInfo kShardedParameterServerAlgorithm;

}  // namespace collsim
