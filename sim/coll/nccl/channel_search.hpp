// NCCL's channel graphs for one system (src/graph/search.cc ncclTopoCompute,
// ncclTopoDupChannels; paths.cc; connect.cc): for ring and tree channels, the order in
// which each channel visits a host's GPUs (over NVLink where it exists), the NIC it
// enters and leaves every host by (the one nearest its GPUs, successive channels on
// successive NICs, same NIC in and out: crossNic 0), the per-channel speed (GB/s) and
// the channel count after duplication. Bandwidths are NCCL's own figures (path_type.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/nccl/path_type.hpp"
#include "sim/coll/nccl/transport.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

// One host as NCCL sees it: its ranks' GPUs (local index = position) and its NICs.
struct NcclHost {
  std::vector<int> ranks;        // global ranks on this host, ascending
  std::vector<NodeIndex> gpus;   // their nodes
  std::vector<NodeIndex> nics;   // the host's NIC nodes, in node order
};

struct NcclChannel {
  std::vector<int> order;  // local GPU indices: entry GPU first, exit GPU last
  int nic = -1;            // local NIC index into every host; -1 on one host
  int exit_nic = -1;       // local NIC index out of every host: `nic` unless crossNic
  PathType exit_path = PathType::Loc;  // exit GPU to the NIC (PIX, PXB, PXN, PHB, SYS)
  int proxy = -1;          // PXN: the local GPU whose PCIe switch holds the NIC
};

struct NcclSearchOptions {
  int min_channels = 1;   // NCCL_MIN_NCHANNELS
  int max_channels = 32;  // channels searched before duplication (MAXCHANNELS / 2)
  int channel_limit = 64; // MAXCHANNELS: duplication stops here
  // NCCL_CROSS_NIC: 0 a channel leaves every host by the NIC it entered by (its rail); 1
  // by any NIC, the nearest to its last GPU first; 2 (NCCL's default) as 0, and as 1 at a
  // speed where 0 finds no ring.
  int cross_nic = 2;
  NcclTransportLevels transports;  // NCCL_P2P_LEVEL / NCCL_P2P_DISABLE, NCCL_NET_GDR_LEVEL
  bool operator==(const NcclSearchOptions&) const = default;
};

struct NcclGraph {
  std::string pattern;      // "ring"
  GpuArch arch = GpuArch::Hopper;
  int hosts = 1;
  int channels = 0;         // after duplication
  double speed_gbps = 0;    // per channel after duplication (bwIntra = bwInter here)
  double searched_speed_gbps = 0;  // the search's speed before duplication
  // The tree graph's bwIntra after NCCL's second pass (several hosts): the chains inside
  // a host may run faster than the network legs, up to twice bwInter (= speed_gbps).
  double tree_speed_gbps = 0;
  int searched_channels = 0;
  bool duplicated = false;
  bool cross_nic = false;   // some channel leaves a host by another NIC than it entered by
  PathType type_intra = PathType::Nvl;
  PathType type_inter = PathType::Pix;  // meaningful with more than one host
  std::vector<NcclHost> host;           // per host, in order of their first rank
  std::vector<NcclChannel> per_channel; // channels entries
  // Transports (every host alike, local indices): shm[a][b], GPU a sends to GPU b through
  // host memory (no P2P); staged[a][k], GPU a reaches NIC k through host memory (no
  // GPUDirect RDMA). The search priced those routes through the CPU.
  std::vector<std::vector<bool>> shm, staged;
  std::vector<bool> nic_gpu_direct;  // per local NIC: its net transport has GPUDirect RDMA
  NcclTransportLevels transports;  // the levels the search ran under
  PathType p2p_level = PathType::Pxb;  // the P2P level it applied: NCCL_P2P_LEVEL, else the host's default
  std::optional<HostCpu> host_cpu;     // the first host's first CPU, where the topology names it

  // Channel c's global rank order: every host's ranks in the channel's local order,
  // hosts in order.
  [[nodiscard]] std::vector<int> rank_order(int c) const;
};

// The search for `graph`'s ranks grouped by `host_of_rank` (labels, as TopologyFacts).
// nullopt when NCCL's graph does not apply: ranks that are not GPUs of a known
// generation, hosts with different rank or NIC counts, or several hosts without NICs;
// `why_not` (if given) then says which, in words.
[[nodiscard]] std::optional<NcclGraph> search_nccl_ring(LinkGraph& graph, const std::vector<int>& host_of_rank,
                                                        const NcclSearchOptions& options = {},
                                                        std::string* why_not = nullptr);
// The same for ranks on the GPUs `rank_nodes` of `graph`'s topology (rank r on
// rank_nodes[r]), which need not be its own ranks: one process group of a larger job.
[[nodiscard]] std::optional<NcclGraph> search_nccl_ring(LinkGraph& graph, const std::vector<NodeIndex>& rank_nodes,
                                                        const std::vector<int>& host_of_rank,
                                                        const NcclSearchOptions& options = {},
                                                        std::string* why_not = nullptr);

// Each host's NICs, in node order (the order NCCL's NIC indices follow), by host node.
[[nodiscard]] std::map<NodeIndex, std::vector<NodeIndex>> host_nics(const Topology& topo);

// `g`'s channels on other GPUs of alike hosts: rank r on rank_nodes[r] (the ranks keep
// their places on their hosts), every host's NICs from `nics` (host_nics of the topology).
[[nodiscard]] NcclGraph moved_to(NcclGraph g, const Topology& topo, const std::vector<NodeIndex>& rank_nodes,
                                 const std::map<NodeIndex, std::vector<NodeIndex>>& nics);

// The route a channel's data takes from host `from`'s exit GPU to host `to`'s entry GPU:
// exit GPU to the channel's exit NIC (through the NIC's own GPU over NVLink for PXN),
// across the fabric to the next host's entry NIC (the same rail unless crossNic), to its
// entry GPU. nullopt if a leg has no path.
[[nodiscard]] std::optional<Route> channel_hop_route(LinkGraph& graph, const NcclGraph& g, int channel, int from,
                                                     int to);
// A tree channel's hop between the heads of its chains on hosts `from` and `to` (the GPU
// the channel enters each host by), through the channel's NIC on both; nullopt if a leg has
// no path.
[[nodiscard]] std::optional<Route> tree_hop_route(LinkGraph& graph, const NcclGraph& g, int channel, int from, int to);
// The same between local GPU `local` of hosts `from` and `to` through their NIC `nic`
// (staged through host memory where the graph says so).
[[nodiscard]] std::optional<Route> gpu_nic_hop_route(LinkGraph& graph, const NcclGraph& g, int local, int nic, int from,
                                                     int to);

}  // namespace collsim
