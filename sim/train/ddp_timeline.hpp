// One DDP training step replayed on two GPU streams: forward, backward with per-gradient
// bucket copies, in-order bucket all-reduces overlapping the backward, finalize (wait +
// copy-out), optimizer. Options mirror PyTorch DDP's. Times in ps, sizes in bytes.
#pragma once

#include <functional>

#include "sim/algo/collective.hpp"
#include "sim/core/name_table.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/compute_model.hpp"
#include "sim/train/host_costs.hpp"
#include "sim/train/stream_program.hpp"

namespace collsim {

// DDP's coalesced broadcast chunk (distributed.py broadcast_bucket_size): the buffer sync
// before each forward and the constructor's init_sync (ddp_startup.hpp).
inline constexpr std::int64_t kBroadcastCoalescedBytes = 250LL * 1024 * 1024;

// Time of one collective of `bytes` per rank over the job's ranks.
using CollectiveCostFn = std::function<Time(CollectiveOp op, Bytes bytes)>;
// The compute slowdown while that collective runs (interference.hpp), s: rate 1/(1+s).
using CollectiveSlowdownFn = std::function<double(CollectiveOp op, Bytes bytes)>;

enum class CommHook : std::uint8_t { None, Fp16, Bf16, PowerSgd, OneBit };
template <>
inline constexpr auto kEnumNames<CommHook> = names_in_order<CommHook>({"none", "fp16", "bf16", "powersgd", "onebit"});
enum class DdpBackend : std::uint8_t { Nccl, Gloo };
template <>
inline constexpr auto kEnumNames<DdpBackend> = names_in_order<DdpBackend>({"nccl", "gloo"});

struct DdpOptions {
  BucketOptions buckets;
  bool gradient_as_bucket_view = false;
  bool overlap = true;            // false: every all-reduce waits for the end of backward
  int accumulate = 1;             // K: K-1 micro-steps under no_sync, then one synced
  CommHook hook = CommHook::None;
  int powersgd_rank = 1;
  int world_size = 1;
  std::int64_t step = 1;          // the training step replayed (0 with first_iteration): whose
                                  // unused parameters (Parameter::unused_in_steps) it skips
  bool join = false;              // inside Join: each forward all-reduces the join signal, which the
                                  // first gradient's copy-in waits for (the reducer's divide factor)             // ranks of the job (the 1-bit hook's server stage owns 1/N of a bucket)
  bool first_iteration = false;   // iteration 0: construction buckets (else rebuilt ones)
  bool broadcast_buffers = true;
  Time graph_walk;                // find_unused_parameters: CPU autograd-graph walk per step
  DdpBackend backend = DdpBackend::Nccl;
  double compute_slowdown = 0;    // compute at 1/(1+s) speed while a collective runs
  HostCosts host;                 // CPU launch costs (none by default; host_costs.hpp)
  // Per-collective compute slowdown (NCCL's SM and HBM share, interference.hpp); empty:
  // compute_slowdown alone. The larger of the two applies while a collective runs.
  CollectiveSlowdownFn comm_interference;
};

struct BucketTiming {
  std::size_t index = 0;
  std::size_t params = 0;
  Bytes bytes;        // flat bucket size
  Bytes wire_bytes;   // all-reduced bytes per rank (after a compression hook)
  int collectives = 0;
  Time ready;         // last gradient copied in
  Time launched;      // issued (all earlier buckets launched)
  Time start;         // first collective starts on the communication stream
  Time end;           // last collective ends
};

struct DdpResult {
  BucketPlan plan;
  StreamProgram program;
  StreamTimeline timeline;
  std::vector<BucketTiming> buckets;
  int accumulate = 1;
  Time iteration;     // one optimizer step (all K micro-steps)
  Time forward, backward, copies, hook_compute, optimizer, other_compute;
  Time host_launch;   // the host thread's launch time for the step (all micro-steps)
  Time host_wait;     // time the compute stream idles until the host launches its next task
  Time comm_total;    // sum of collective durations
  Time comm_busy;     // time the communication stream is busy (union)
  Time exposed_comm;  // time the compute stream waits for communication
  double overlap_percent = 0;  // share of comm_busy hidden behind compute
};

// A run under the 1-bit hook: its first `warmup_steps` steps all-reduce at full precision
// (the step without a hook), the others compressed. With `steps` > 0, the mean step over
// that many steps: (min(W, K) x warm-up + max(K - W, 0) x compressed) / K, rounded down
// to the ps.
struct OneBitRun {
  int warmup_steps = 0;
  Time warmup_iteration;
  Time compressed_iteration;
  int steps = 0;  // 0: no run length given, no mean
  Time mean_iteration;
};
[[nodiscard]] OneBitRun onebit_run(int warmup_steps, int steps, Time warmup_iteration, Time compressed_iteration);

// The buckets the step reduces: the construction buckets in iteration 0, else the rebuilt
// ones (they depend on the workload's parameters and o.buckets, not on the cluster).
[[nodiscard]] BucketPlan ddp_bucket_plan(const Workload& w, const DdpOptions& o);

// The parameters unused in step `step` (per parameter). Throws ConfigError (empty source)
// naming "find_unused_parameters" when some are unused without it (PyTorch's reducer
// stops with "Expected to have finished reduction in the prior iteration"),
// "static_graph" when a parameter is unused in some steps only (a static graph is the
// same every step), and "unused_in_steps" when no parameter is used.
[[nodiscard]] std::vector<bool> unused_parameters(const Workload& w, const DdpOptions& o);

// A DDP step replays as one captured CUDA graph only in steady state (capture follows
// eager warm-up iterations, so never iteration 0), with NCCL (Gloo's collectives run on
// CPU threads, outside any graph) and a static graph (find_unused_parameters walks the
// autograd graph on the CPU every step unless static_graph). Throws ConfigError (empty
// source, field "cuda_graph", what is expected) otherwise.
void check_cuda_graph(const DdpOptions& o);

// Throws ConfigError naming the DdpOptions field (empty source, field "hook") when
// PowerSGD needs parameter shapes that the workload lacks, ("accumulate") for a
// micro-step count below 1, and ("cuda_graph") for a step graph capture cannot hold
// (check_cuda_graph).
[[nodiscard]] DdpResult simulate_ddp(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                     const DdpOptions& o);
// The same with the bucket plan already built (ddp_bucket_plan(w, o)): a sweep builds it
// once per bucket size and plays it at every world size.
[[nodiscard]] DdpResult simulate_ddp(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                     const DdpOptions& o, const BucketPlan& plan);

}  // namespace collsim
