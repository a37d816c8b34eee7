// What NCCL (NCCL_DEBUG_SUBSYS=GRAPH,TUNING) would report for a topology's ranks, as
// collsim models it: host 0's path types (GPU x GPU, GPU x NIC), the ring channel graph,
// and the tuning model's figures for a large all-reduce per (algorithm, protocol).
// Latencies are Time (ps); bandwidths GB/s (1 GB = 1e9 B).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/coll/link_class.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/coll/protocol_model.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// Path types between host 0's devices, as NCCL's transports route them (through a CPU
// without P2P or GPUDirect RDMA); nullopt where the link graph has no route.
using PathMatrix = std::vector<std::vector<std::optional<PathType>>>;

// One (algorithm, protocol) as collective_cost prices it.
struct NcclTuningRow {
  std::string algorithm;
  Protocol protocol = Protocol::Simple;
  std::optional<std::string> unusable;  // collective_cost's reason; the figures below are unset
  int channels = 0;
  Time base_latency;                           // once per collective (NCCL baseLat)
  std::array<Time, kLinkClasses> step_latency{};  // one step, by its route's slowest class (hwLat)
  double efficiency = 0;                       // payload bytes per wire byte (1 / wire inflation)
  std::optional<double> channel_cap_gbps;      // per-channel flow cap, wire GB/s; none: links only
  // How many capped flows the bus bandwidth adds up: the channels for ring and tree; for
  // NVLS, whose cap is per GPU pair, 2(n-1) (a GPU's n-1 legs each way; busbw = 2(n-1)/n x
  // algbw, and the legs carry (n-1)/n of the buffer).
  double capped_flows = 0;
  // capped flows x channel cap x efficiency: payload GB/s the caps let through (busbw);
  // none without a channel cap.
  [[nodiscard]] std::optional<double> busbw_cap_gbps() const;
};

// An algorithm left out of the table because no protocol can run it.
struct NcclOmittedAlgorithm {
  std::string algorithm;
  std::string reason;
};

struct NcclGraphSummary {
  std::string topology;  // name
  std::string source;    // file
  int ranks = 0;
  // Why NCCL's channel graph does not apply; when set, nothing below is filled in.
  std::optional<std::string> not_applicable;
  std::optional<NcclGraph> graph;
  PathMatrix gpu_gpu;  // host 0, local GPU x local GPU
  PathMatrix gpu_nic;  // host 0, local GPU x local NIC
  std::vector<bool> nic_gpu_direct;  // host 0, per local NIC: its net transport has GPUDirect RDMA
  Collective tuned;    // the all-reduce the tuning rows price
  std::string model;   // the tuning model's source
  std::vector<NcclTuningRow> tuning;
  std::vector<NcclOmittedAlgorithm> omitted;
};

// The size the tuning rows are priced at: large enough that no protocol cuts channels.
inline constexpr Bytes kNcclTuningSize{std::int64_t{1} << 30};

// `protocols_auto`: NCCL_PROTO unset, so LL128 rows follow NCCL's default
// (ll128_off_by_default); false: NCCL_PROTO was given and LL128 runs where it can.
// `asked`: the algorithms NCCL_ALGO resolved to (collsim names); those auto does not try
// (CollNet's, and PAT outside all-gather and reduce-scatter) follow auto's candidates.
[[nodiscard]] NcclGraphSummary summarize_nccl_graph(const Topology& topo,
                                                   const ProtocolModel& model = nccl_default_model(),
                                                   bool protocols_auto = true,
                                                   const std::vector<std::string>& asked = {});

}  // namespace collsim
