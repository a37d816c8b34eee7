// Predicts one collective on a topology: for each candidate (algorithm, protocol) builds
// the schedule, plays it with the protocol's costs, adds the base latency, and keeps the
// fastest (ties: the earlier candidate). Reports the time with nccl-tests' algbw/busbw
// (GB/s, 1 GB = 1e9 B).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/algo/registry.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/link_scenario.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct CollectiveRequest {
  std::vector<std::string> algorithms{std::string(default_algorithm())};
  std::vector<Protocol> protocols{Protocol::Ideal};
  ProtocolModel model = nccl_default_model();
  CostOverrides overrides;
  std::optional<int> hosts;  // group ranks into this many hosts instead of Node::host
  // Always replay every transfer. Otherwise a regular schedule (ring, hierarchical ring)
  // is played one step per phase when that is exact (see phased_player.hpp).
  bool exact = false;
  // GPUs one CPU thread launches each operation on (nccl-tests -g): an NCCL protocol's
  // time is at least this many launches (ProtocolModel::launch_overhead).
  int gpus_per_thread = 1;
  // NCCL's channel graph for this link graph and host grouping when the caller has
  // searched it already (a cache pricing many sizes); otherwise searched when needed.
  std::shared_ptr<const std::optional<NcclGraph>> channel_graph;
  // Under NCCL protocols, choose between ring and tree as NCCL does, by its tuning model
  // (nccl_model_time), and play only that choice; false: play every candidate, keep the
  // fastest.
  bool nccl_selection = true;
  // `protocols` came from "auto": an algorithm NCCL does not run (nccl_algorithm) gets the
  // ideal protocol instead of NCCL's.
  bool protocols_auto = false;
  // Link and NIC events during the collective (link_scenario.hpp): every candidate is
  // replayed transfer by transfer with them.
  std::shared_ptr<const LinkScenario> scenario;
  // When each rank enters the collective (empty: together at 0; PlayOptions::rank_arrival):
  // every candidate is replayed transfer by transfer with them, and its time runs from 0.
  std::shared_ptr<const std::vector<Time>> rank_arrival;
  // Only the choice is wanted: when a single candidate is left to play (NCCL's tuning model
  // picked among all of them), return it unplayed, its time 0.
  bool choose_only = false;
};

struct CollectivePrediction {
  Collective collective;
  std::string algorithm;
  Protocol protocol = Protocol::Ideal;
  int channels = 1;
  Time time;
  bool fast_path = false;  // true when the step-per-phase fast path produced `time`
  double algbw_gbps = 0;  // nccl-tests algbw: size / time, GB/s
  double busbw_gbps = 0;  // algbw x busbw_factor
};

// Throws std::invalid_argument when no candidate can run (the message says why).
[[nodiscard]] CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c,
                                                      const CollectiveRequest& request);
// A prediction's (algorithm, protocol) replayed transfer by transfer (no fast path), for
// traces: the schedule, when each transfer started and ended (its dependencies met, its
// last byte delivered; ps from the first transfer), and the base latency the prediction
// adds to the replay's duration. Throws std::invalid_argument as predict_collective does.
struct CollectiveReplay {
  Schedule schedule;
  std::vector<TransferTiming> timings;  // per transfer
  Time duration;                        // last transfer's end
  Time base_latency;
};
[[nodiscard]] CollectiveReplay replay_collective(LinkGraph& graph, const CollectivePrediction& prediction,
                                                 const CollectiveRequest& request);

// The routes NCCL's channel graph `g` gives the data of `algo` under `options`, pinned on
// `graph` until clear_pinned_routes(): a ring channel's hop between hosts through the
// channel's NIC on both (not whichever NICs the two GPUs own); where `g` stages network
// data in host memory, a tree's hops between its chain heads through the channel's NIC and
// the heads' CPUs; and, whatever the algorithm, GPU pairs of a host without P2P (g.shm)
// through the receiver's CPU. `job_rank` maps `g`'s ranks to `graph`'s (empty: the same).
void pin_nccl_routes(LinkGraph& graph, const NcclGraph& g, std::string_view algo, const AlgorithmOptions& options,
                     std::span<const int> job_rank = {});

// One algorithm, ideal protocol.
[[nodiscard]] CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const std::string& algo);

}  // namespace collsim
