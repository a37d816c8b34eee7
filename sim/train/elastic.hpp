// DDP runs whose membership changes between steps (elastic training). When ranks leave or
// join, torchelastic stops the workers, runs a new rendezvous over the members, and
// restarts them. A new communicator is built over the new ranks, so new rings, trees and
// host groups follow. DDP's constructor then broadcasts rank 0's parameters and buffers in
// buckets of 250 MiB (broadcast_bucket_size in torch/nn/parallel/distributed.py). The run
// goes on at the new size. Times in ps, sizes in bytes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/train/ddp_timeline.hpp"

namespace collsim {

// From `step` on, the job runs on the first `ranks` ranks of the topology.
struct MembershipChange {
  int step = 0;
  int ranks = 0;
};

// torchelastic's extra wait once the minimum number of nodes has joined (RendezvousTimeout's
// last_call default in torch/distributed/elastic/rendezvous/dynamic_rendezvous.py). It is
// paid when the job resumes below its largest size; a rendezvous that reaches it closes at once.
inline constexpr Time kRendezvousLastCall = Time::from_s(30);
// DistributedDataParallel's broadcast_bucket_size: the module states go out in buckets of this size.
inline constexpr Bytes kDdpBroadcastBucket{250LL * 1024 * 1024};

struct RebuildCosts {
  std::optional<Time> rendezvous;  // unset: kRendezvousLastCall below the largest size, else 0
  std::optional<Time> comm_init;   // NCCL communicator init; unset: not modelled (counted as 0, reported so)
};

// A schedule rebuilt over a membership and proved by the symbolic executor.
struct ScheduleProof {
  std::string algorithm;
  int ranks = 0;
  std::size_t transfers = 0;
};

// What one membership gives, from the caller (it owns the topology and the collective costs).
struct MembershipModel {
  DdpResult step;                   // one step on these ranks
  CollectiveCostFn cost;            // collectives over these ranks (the state broadcast)
  std::vector<ScheduleProof> proofs;
};
using MembershipFn = std::function<MembershipModel(int ranks)>;

struct ElasticPhase {
  int first_step = 0, last_step = 0;  // inclusive
  int ranks = 0;
  DdpResult step;
  std::vector<ScheduleProof> proofs;
};

struct ElasticRebuild {
  int step = 0;  // before this step
  int from_ranks = 0, to_ranks = 0;
  Time rendezvous;
  bool rendezvous_given = false;
  std::optional<Time> comm_init;
  Bytes state_bytes;  // parameters and buffers broadcast from rank 0
  int broadcasts = 0;
  Time state_broadcast;
  Time total;
};

struct ElasticResult {
  std::vector<ElasticPhase> phases;
  std::vector<ElasticRebuild> rebuilds;
  Time steps_time;    // every step of every phase
  Time rebuild_time;  // every rebuild
  Time total;
};

// `steps` steps starting on `initial_ranks` ranks; `max_ranks`: the topology's. Throws
// ConfigError naming the field: "steps" outside 2..1,000,000; "membership" for a change
// at a step outside 1..steps-1 or not after the previous one, or to a rank count outside
// 1..max_ranks or equal to the current one.
[[nodiscard]] ElasticResult simulate_elastic(const Workload& w, int steps, int initial_ranks, int max_ranks,
                                             const std::vector<MembershipChange>& changes, const RebuildCosts& costs,
                                             const MembershipFn& at);

}  // namespace collsim
