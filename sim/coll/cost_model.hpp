// Turns (topology, collective, algorithm, protocol) into what the schedule player needs:
// the one-off base latency, the per-step cost (latency by link class, wire inflation,
// per-flow cap) and the algorithm's channels and pipeline slice. The bandwidth side
// follows NCCL's channel search in a simplified form: the largest per-channel speed of
// NCCL's list that fits the rank's injection bandwidth, as many channels as fit, doubled
// at half speed when NCCL would duplicate them; each channel is then capped at its speed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/collective.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/protocol_model.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/coll/topology_facts.hpp"

namespace collsim {

struct ChannelPlan {
  int channels = 1;
  Bandwidth per_channel;  // speed of one channel (bytes/s)
};

// NCCL-style channel search (reference/nccl-model.md s. 4); a calibration's channels /
// channel_bandwidth replace the searched values.
[[nodiscard]] ChannelPlan search_channels(const TopologyFacts& facts, const ProtocolModel& model);

// The row of NCCL's llMaxBws a multi-node communicator takes (tuning.cc: "for multi-node,
// we look at CPU type"): 1 where its hosts' CPUs are AMD or of mixed vendors, else 0.
[[nodiscard]] std::size_t nccl_ll_cpu_row(const CommCpu& cpu);

// NCCL's chunk tuning (enqueue.cc): halve `chunk` while each of `channels` channels holds
// fewer than `want` whole chunks of `size` and the chunk is above `floor`.
[[nodiscard]] std::int64_t nccl_halve_chunk(std::int64_t chunk, Bytes size, int channels, double want, std::int64_t floor);

// NCCL's per-size reduction: fewer channels while bytes < channels x threads x threshold.
[[nodiscard]] int channels_for_size(int channels, Bytes size, Protocol p, NcclRow row, int ranks,
                                    const ProtocolModel& model);

// NCCL's intraHw: NVLink's latency class when the graph's (or, without a graph, the
// ranks') intra-host path is NVLink, else PCI's.
[[nodiscard]] LinkClass nccl_intra_class(const TopologyFacts& facts, const NcclGraph* graph);

// The GPU generation the model uses: the topology's, or Hopper when it names no GPU.
[[nodiscard]] GpuArch model_arch(const TopologyFacts& facts);

// NCCL's default for LL128 (tuning.cc, ncclTopoTuneModel: "enable LL128 by default only on
// Volta/Ampere/Hopper/Blackwell+NVLink"): on when every rank's GPU has one compute
// capability among SM 7.0, 8.0, 9.0, 10.0 and 12.0, the graph's paths inside a host are
// NVLink (NVL or NVB) and its paths to the NICs at most PXB (PXN from SM 9.0). Returns why it
// is off here, nullopt when on (or when the ranks are not GPUs: collective_cost refuses LL128
// there). Without a graph the ranks' NVLink decides the intra-host path. NCCL_PROTO naming
// LL128 forces it on: only `auto` protocol choices apply this rule.
[[nodiscard]] std::optional<std::string> ll128_off_by_default(const TopologyFacts& facts, const NcclGraph* graph);

// User overrides: channels (0 = from the model), slice (0 = protocol's step).
struct CostOverrides {
  int channels = 0;
  Bytes slice{0};
};

struct CollectiveCost {
  Time base_latency;         // paid once per collective (NCCL baseLat)
  StepCost step;             // per transfer
  AlgorithmOptions options;  // channels, slice, host grouping for the schedule
  int channels = 1;
  std::optional<std::string> unusable;  // why this (algorithm, protocol) cannot run here
  // NCCL's own tuning figures for ring and tree (ncclTopoTuneModel): busBw in GB/s from
  // the communicator's channel count (before the per-size reduction) with the protocol's
  // efficiency and caps; 0 for anything else.
  double nccl_busbw_gbps = 0;
};

// collective_cost for a candidate NCCL chooses among: with `protocols_auto` (NCCL_PROTO
// unset) it also refuses LL128 where NCCL leaves it off by default (ll128_off_by_default).
[[nodiscard]] CollectiveCost candidate_cost(const TopologyFacts& facts, const Collective& c, std::string_view algo,
                                            Protocol p, const ProtocolModel& model, const CostOverrides& user,
                                            const NcclGraph* graph, bool protocols_auto);

// NCCL's estimate of the collective (ncclTopoGetAlgoTime: latency + bytes / algBw, with
// the latency from baseLat and hwLat per intra-node and network step, the ring's plateau
// factor and the tree's correction table), the figure NCCL picks its algorithm and
// protocol by. nullopt for what NCCL does not tune this way (nvls, collsim's other
// algorithms, the ideal protocol, tree for anything but all-reduce). `graph` as for
// collective_cost (its intra path type decides NVLink or PCI latency).
[[nodiscard]] std::optional<Time> nccl_model_time(const TopologyFacts& facts, const Collective& c, std::string_view algo,
                                                  Protocol p, const CollectiveCost& cost, const NcclGraph* graph);

// `graph`: NCCL's channel graph of the system (channel_search.hpp). With an NCCL protocol
// it gives ring and tree their channel count, per-channel speed and per-channel rank
// orders; without one (no GPUs of a known generation, uneven hosts) the simplified
// search above is used.
[[nodiscard]] CollectiveCost collective_cost(const TopologyFacts& facts, const Collective& c, std::string_view algo,
                                             Protocol p, const ProtocolModel& model, const CostOverrides& user = {},
                                             const NcclGraph* graph = nullptr);

}  // namespace collsim
