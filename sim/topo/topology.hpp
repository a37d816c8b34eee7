// A cluster as data: nodes (GPUs, switches, NICs, hosts...), directed links with
// payload bandwidth (bytes/s), line rate (bytes/s), latency (ps), lane count and MTU
// (bytes), and the ranks (which nodes run the collective).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/host_cpu.hpp"

namespace collsim {

enum class NodeKind : std::uint8_t { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, Switch, Host };
template <>
inline constexpr auto kEnumNames<NodeKind> =
    names_in_order<NodeKind>({"gpu", "nvswitch", "pcie_switch", "cpu", "nic", "switch", "host"});
enum class LinkKind : std::uint8_t { NvLink, NvSwitch, Pcie, Ib, Roce, Ethernet };
template <>
inline constexpr auto kEnumNames<LinkKind> =
    names_in_order<LinkKind>({"nvlink", "nvswitch", "pcie", "ib", "roce", "ethernet"});

using NodeIndex = std::uint32_t;

struct Node {
  std::string id;
  NodeKind kind = NodeKind::Gpu;
  std::string model;                  // GPU model (gpu_catalogue.hpp's spelling, "H100"), empty when not stated
  std::optional<NodeIndex> host;      // the host (server) this node belongs to, if any
  std::optional<NodeIndex> nic;       // a GPU's own NIC: its traffic leaves the host there
  Time net_latency{};                 // a NIC's: what its NCCL net plugin reports (net_transport.hpp)
  // A NIC's: whether its net transport has GPUDirect RDMA, where the topology names the
  // transport; unset: the network link says (nic_gpu_direct, sim/coll/nccl/transport.hpp).
  std::optional<bool> net_gpu_direct{};
  // A CPU socket's: its DRAM's peak bandwidth (channels x transfer rate x 8 B, reads and
  // writes together); zero when the topology does not say. Offloaded optimizers run there.
  Bandwidth memory_bandwidth{};
  // A CPU socket's: the CPU as NCCL classifies it (host_cpu.hpp); unset when the topology
  // does not say.
  std::optional<HostCpu> platform{};
};

// One direction of a physical link.
struct DirectedLink {
  NodeIndex from = 0;
  NodeIndex to = 0;
  LinkKind kind = LinkKind::Ethernet;
  Bandwidth bandwidth;   // payload bytes/s this direction carries: line_rate less header overhead
  Time latency;          // one-way propagation + switching latency
  Bandwidth line_rate;   // signalling rate of all lanes together (bytes/s), before overhead
  int lanes = 1;         // parallel physical links bundled into this one (e.g. 12 NVLinks)
  int mtu = 0;           // bytes per Ethernet frame payload (ethernet only; 0 = none)
};

struct Topology {
  std::string name;
  std::string source;                 // file it came from, or "built-in:..."
  std::vector<Node> nodes;
  std::vector<DirectedLink> links;
  std::vector<NodeIndex> ranks;       // rank r runs on node ranks[r]

  [[nodiscard]] int rank_count() const { return static_cast<int>(ranks.size()); }
  // Node v's host, or v itself when it has none (a bare GPU or CPU is its own host).
  [[nodiscard]] NodeIndex host_or_self(NodeIndex v) const { return nodes[v].host.value_or(v); }
  [[nodiscard]] std::optional<NodeIndex> find(std::string_view id) const;
  // The largest Node::net_latency of its NICs (0 when none reports one): NCCL's latencyInter.
  [[nodiscard]] Time max_net_latency() const;
  // Adds both directions with the same bandwidth and latency (one lane, no MTU: the
  // payload rate is the line rate).
  void add_duplex(NodeIndex a, NodeIndex b, LinkKind kind, Bandwidth bw, Time latency);
  // Adds both directions of `lanes` x `lane_rate`; for ethernet the payload rate is
  // charged the TCP/IP header overhead of `mtu` (see link_overhead.hpp).
  void add_duplex(NodeIndex a, NodeIndex b, LinkKind kind, Bandwidth lane_rate, int lanes, Time latency, int mtu);
  NodeIndex add_node(std::string id, NodeKind kind, std::string model = {});
};

// Per host node that has CPU nodes: the platform of its first CPU node (lowest index), as
// NCCL takes its system's first CPU; nullopt where that CPU names none.
[[nodiscard]] std::map<NodeIndex, std::optional<HostCpu>> host_platforms(const Topology& topo);
// The same for node `v`'s host; nullopt when `v` has no host, the host no CPU node, or that
// CPU names no platform.
[[nodiscard]] std::optional<HostCpu> host_platform(const Topology& topo, NodeIndex v);

}  // namespace collsim
