// Training runs whose membership changes between steps (elastic training). When ranks
// leave or join, torchelastic stops the workers, runs a new rendezvous over the members,
// and restarts them. A new communicator is built over the new ranks, so new rings, trees
// and host groups follow. The model state every rank holds whole (DDP: parameters and
// buffers; ZeRO-1/2: parameters) is broadcast from rank 0 in buckets of 250 MiB
// (broadcast_bucket_size in torch/nn/parallel/distributed.py); state that is sharded
// (ZeRO's optimizer state, ZeRO-3/FSDP's parameters too) is re-sharded over the new ranks,
// priced as an all-to-all in which every rank receives its new shard. The run goes on at
// the new size. Times in ps, sizes in bytes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/train/ddp_timeline.hpp"
#include "sim/train/sharding.hpp"

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

// One step's figures, whatever the strategy.
struct ElasticStep {
  Time iteration;
  Time exposed_comm;
};

// The model state a new membership needs.
struct ModelState {
  Bytes replicated;    // every rank holds it whole: broadcast from rank 0
  Bytes sharded;       // split over `shard_group` ranks: re-sharded
  int shard_group = 0;  // ranks sharing one copy (HYBRID_SHARD: a node); 0: the whole job
};
// DDP: parameters and buffers, replicated.
[[nodiscard]] ModelState ddp_model_state(const Workload& w);
// ZeRO / FSDP under `o` (its precision): buffers replicated; ZeRO-1/2 also the parameters,
// with the optimizer state (master copy and moments) sharded; ZeRO-3 and FSDP shard the
// parameters too (HYBRID_SHARD over each node's ranks).
[[nodiscard]] ModelState sharded_model_state(const Workload& w, const ShardingOptions& o);

// What one membership gives, from the caller (it owns the topology and the collective costs).
struct MembershipModel {
  ElasticStep step;                 // one step on these ranks
  CollectiveCostFn cost;            // collectives over these ranks (broadcast, all-to-all)
  std::vector<ScheduleProof> proofs;
};
using MembershipFn = std::function<MembershipModel(int ranks)>;

struct ElasticPhase {
  int first_step = 0, last_step = 0;  // inclusive
  int ranks = 0;
  ElasticStep step;
  std::vector<ScheduleProof> proofs;
};

struct ElasticRebuild {
  int step = 0;  // before this step
  int from_ranks = 0, to_ranks = 0;
  Time rendezvous;
  bool rendezvous_given = false;
  std::optional<Time> comm_init;
  Bytes state_bytes;  // the replicated state, broadcast from rank 0
  int broadcasts = 0;
  Time state_broadcast;
  Bytes reshard_bytes;  // the sharded state (0: none)
  Bytes reshard_per_rank;  // each rank's new shard
  Time reshard;
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
[[nodiscard]] ElasticResult simulate_elastic(const ModelState& state, int steps, int initial_ranks, int max_ranks,
                                             const std::vector<MembershipChange>& changes, const RebuildCosts& costs,
                                             const MembershipFn& at);

}  // namespace collsim
