// One training step of a sharded data-parallel job (ZeRO-1/2/3, FSDP FULL_SHARD,
// SHARD_GRAD_OP, HYBRID_SHARD) replayed on the two-stream player: per-unit all-gathers
// before forward and backward with FSDP's prefetch order and in-flight limit, gradient
// reduce-scatters per bucket or unit, the sharded optimizer step and ZeRO-1/2's parameter
// all-gather after it. Times in ps, sizes in bytes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/coll/comm_group.hpp"
#include "sim/train/compute_model.hpp"
#include "sim/train/sharding.hpp"
#include "sim/train/stream_program.hpp"
#include "sim/train/workload.hpp"

namespace collsim {

// One FSDP unit (or ZeRO-3 partition): consecutive workload layers and their parameters.
struct ShardUnit {
  std::string name;
  std::size_t first_layer = 0, last_layer = 0;   // inclusive range into Workload::layers (the root's
                                                 // layers need not be contiguous: their span)
  std::vector<std::size_t> params;               // indices into Workload::parameters
  std::int64_t numel = 0;
  bool root = false;                              // FSDP's root unit (parameters outside every block)
};

// Units in forward order under the policy; the root unit, if any, comes first.
[[nodiscard]] std::vector<ShardUnit> make_units(const Workload& w, const ShardingOptions& o);

struct UnitTiming {
  std::size_t unit = 0;
  Time forward_gather_start, forward_gather_end;    // 0,0 when none
  Time backward_gather_start, backward_gather_end;  // 0,0 when none
  Time reduce_start, reduce_end;                    // gradient reduce-scatter (or all-reduce)
};

// ZeRO-1/2 gradient bucket (DeepSpeed's reduce bucket): gradients in ready order; a
// bucket is reduced when the next gradient would overflow it, or at the end of backward.
struct GradientBucket {
  std::vector<std::size_t> params;  // indices into Workload::parameters, in ready order
  std::int64_t numel = 0;
  Time ready;                       // when its reduce-scatter was issued (in the last micro-step)
  Time reduce_start, reduce_end;
};

struct ShardedResult {
  std::vector<ShardUnit> units;      // FSDP units (empty for ZeRO-1/2, which have none)
  std::vector<GradientBucket> buckets;  // ZeRO-1/2 only
  StreamProgram program;
  StreamTimeline timeline;
  std::vector<UnitTiming> unit_timings;
  Time iteration;        // one optimizer step (all micro-steps)
  Time forward, backward, optimizer;
  Time comm_total;       // sum of collective durations (the offload's host copies included)
  Time offload_copies;   // of which ZeRO-Offload's host copies (gradients down, weights up)
  Time comm_busy;        // union of communication-stream busy time
  Time exposed_comm;     // time the compute stream waits for communication
  Time host_launch;      // the host thread's launch time (host_costs.hpp)
  Time host_wait;        // time the compute stream idles until the host launches its next task
  double overlap_percent = 0;
  // Per rank, per optimizer step, elements of the model each collective kind carries
  // (an all-reduce of S counts 2S as reduce-scatter + all-gather, as in the ZeRO paper).
  double gathered_elements = 0, reduced_elements = 0;
  Bytes peak_unsharded;  // largest unsharded parameter bytes alive at once (for the memory model)
};

// Throws ConfigError naming the ShardingOptions field (empty source; "sharding" for
// Sharding::Ddp (use simulate_ddp) or when a policy yields no unit, "world_size",
// "accumulate", "all_gather_limit", "precision", "reduce_bucket_bytes", "min_unit_params",
// "ranks_per_node" for values out of their range).
[[nodiscard]] ShardedResult simulate_sharded(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                                             const ShardingOptions& o, int world_size);

}  // namespace collsim
