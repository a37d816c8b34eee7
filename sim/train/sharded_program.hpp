// The two-stream program of one sharded optimizer step (every micro-step), before it is
// played: compute tasks in order and collectives in the order the CPU issues them, each
// gated by the GPU events it waits on. Used by simulate_sharded. Times in ps, sizes in bytes.
#pragma once

#include <optional>
#include <vector>

#include "sim/train/sharded_timeline.hpp"

namespace collsim {

// A unit's collectives in the last micro-step (indices into StreamProgram::comm).
struct UnitComms {
  std::optional<std::size_t> forward_gather, backward_gather;
  std::optional<std::size_t> reduce, reduce_last;  // reduce-scatter; reduce_last: HYBRID's all-reduce after it
};

// A ZeRO-1/2 bucket and its reduce-scatter in the last micro-step.
struct BucketComms {
  std::vector<std::size_t> params;
  std::int64_t numel = 0;
  std::size_t reduce = 0;
};

// Unsharded parameter bytes alive from a gather's start to the end of the compute task
// that frees them (or to the end of the step).
struct Residency {
  std::size_t gather = 0;
  std::optional<std::size_t> freed_by;
  Bytes bytes;
};

struct ShardedProgram {
  StreamProgram program;
  std::vector<UnitComms> units;
  std::vector<BucketComms> buckets;
  std::vector<Residency> residency;
  double gathered_elements = 0, reduced_elements = 0;
};

// Expects validated options (simulate_sharded checks them).
[[nodiscard]] ShardedProgram build_sharded_program(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                                                   const ShardingOptions& o, int world_size,
                                                   const std::vector<ShardUnit>& units);

}  // namespace collsim
