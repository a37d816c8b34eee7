// A DDP sweep: every (world size, bucket_cap_mb) point of a workload, the best bucket size
// per world size, and weak-scaling efficiency (per-GPU batch fixed) against the smallest
// world size: T_best(smallest) / T_best(N). Times in ps.
#pragma once

#include <functional>
#include <vector>

#include "sim/coll/comm_spec.hpp"
#include "sim/core/work_pool.hpp"
#include "sim/topo/topology.hpp"
#include "sim/train/ddp_timeline.hpp"

namespace collsim {

struct SweepSpec {
  std::vector<int> ranks;
  std::vector<Bytes> bucket_caps;  // bucket_cap_mb values as DDP turns them into bytes (bucket_cap_from_mb)
  DdpOptions options;       // bucket_cap is set per point
  CommSpec comm;            // resolved per world size (resolve_comm_spec, with the backend)
  bool exact = false;       // play every distinct bucket size instead of the checked affine fit
  bool interference = false;  // each NCCL collective slows compute by its SM/HBM share (interference.hpp)
};

struct SweepRow {
  int ranks = 0;
  Bytes bucket_cap;
  double bucket_mb = 0;     // bucket_cap as bucket_cap_mb (bucket_cap_mb_of), for reports
  std::size_t buckets = 0;
  Time iteration, comm_total, exposed_comm;
  double overlap_percent = 0;
};

struct SweepBest {
  int ranks = 0;
  Bytes bucket_cap;
  double bucket_mb = 0;     // as in SweepRow
  Time iteration;
  double scaling_efficiency = 0;
};

struct SweepResult {
  std::vector<SweepRow> rows;   // world size major, bucket sizes in the given order
  std::vector<SweepBest> best;  // one per world size
  std::size_t collective_plays = 0;
  std::vector<int> exact_world_sizes;  // where the affine fit failed its check
  std::vector<int> per_size_world_sizes;  // NCCL's choice per size: every bucket size played
};

using TopologyForRanks = std::function<Topology(int ranks)>;  // called from several threads at once

// The sweep's work items: one per world size, keyed "N ranks".
[[nodiscard]] std::vector<WorkItem> sweep_work_items(const SweepSpec& spec);

// Every world size on `runner` (threads, or MPI ranks in collsim-mpi), journaled and
// resumed as `options` say; the result does not depend on the runner.
[[nodiscard]] SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology,
                                    const SweepSpec& spec, const WorkRunner& runner, const WorkOptions& options,
                                    WorkStats* stats = nullptr);
// The same on one thread without a journal.
[[nodiscard]] SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology,
                                    const SweepSpec& spec);

}  // namespace collsim
