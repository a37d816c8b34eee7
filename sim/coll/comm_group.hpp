// The process groups a sharded job's collectives span, and the function that times one
// collective on them. Times in ps, sizes in bytes (nccl-tests size).
#pragma once

#include <cstdint>
#include <functional>

#include "sim/algo/collective.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"

namespace collsim {

// Which ranks a collective spans: all of them, the ranks of one node (HYBRID_SHARD's shard
// group; every node runs its own concurrently), or one rank per node (the replica group;
// ranks_per_node such groups run concurrently).
enum class CommGroup : std::uint8_t { World, IntraNode, InterNode };
template <>
inline constexpr auto kEnumNames<CommGroup> = names_in_order<CommGroup>({"world", "intra-node", "inter-node"});

// Time of one collective; `bytes` is the nccl-tests size (the gathered total for all-gather
// and reduce-scatter, the buffer for all-reduce).
using GroupCostFn = std::function<Time(CollectiveOp op, Bytes bytes, CommGroup group)>;

}  // namespace collsim
