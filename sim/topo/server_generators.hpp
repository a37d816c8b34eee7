// Generators for single servers: DGX-1 V100 (hybrid cube-mesh NVLink), DGX A100, DGX H100,
// HGX H200, DGX B200 (NVSwitch), a PCIe-only 8-GPU box (two sockets), a CPU-only host, and
// an explicit server (nodes and links given as data, e.g. imported from an NCCL topology
// dump). Every figure is a datasheet number cited in server_generators.cpp and docs/topologies.md.
// Bandwidths are per direction (bytes/s), latencies one-way per link (ps).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topo/topology.hpp"

namespace collsim {

enum class ServerKind : std::uint8_t { Dgx1V100, DgxA100, DgxH100, HgxH200, DgxB200, Pcie8Gpu, CpuHost, Explicit };

[[nodiscard]] std::string_view to_string(ServerKind k);
[[nodiscard]] std::optional<ServerKind> server_kind_from(std::string_view s);
[[nodiscard]] std::vector<std::string> server_kind_names();

struct ServerSpec {
  ServerKind kind = ServerKind::DgxH100;
  std::optional<int> nics;            // NIC count; default: the datasheet's compute NICs
  std::string gpu_model = "A100";     // pcie_8gpu only
  int pcie_gen = 4;                   // pcie_8gpu and cpu_host only: 3, 4 or 5
  Time nvlink_latency = Time::from_ns(250);  // per NVLink / NVSwitch hop (round figure, not a datasheet number)
  Time pcie_latency = Time::from_ns(250);    // per PCIe / socket-link hop (round figure, not a datasheet number)
  // explicit only: one server's nodes and links (ids local, exactly one host node, every
  // other node in it, no fabric switches or network links). GPUs in node order are its
  // local GPUs, NICs in node order its rails.
  std::shared_ptr<const Topology> layout{};
};

// The datasheet NIC count of a server kind (DGX-1: 4, DGX A100/H100/B200, HGX H200: 8,
// PCIe box and CPU host: 1; explicit: its layout's NICs).
[[nodiscard]] int default_nic_count(ServerKind k);

// What a fabric needs to know about one server.
struct ServerPorts {
  NodeIndex host = 0;
  std::vector<NodeIndex> gpus;  // local index order
  std::vector<NodeIndex> nics;  // NIC i is rail i
};

// Appends one server to `t`; node ids are `prefix` + local names ("h3/gpu0").
ServerPorts add_server(Topology& t, const ServerSpec& spec, const std::string& prefix);

// One server alone; ranks are its GPUs in local order (its host for a CPU host).
[[nodiscard]] Topology make_server(const ServerSpec& spec);

// PCIe x16 payload rate per direction of one lane for a generation (3, 4, 5):
// 8, 16, 32 GT/s with 128b/130b encoding (PCI-SIG base specifications).
[[nodiscard]] Bandwidth pcie_lane_rate(int gen);

// Payload rate per direction of one NVLink of a version (2, 3, 4: 25 GB/s; 5: 50 GB/s).
[[nodiscard]] Bandwidth nvlink_lane_rate(int version);

// The host CPUs the generators know, and the links between their two sockets.
enum class CpuPlatform : std::uint8_t { XeonBroadwell, Epyc7002, XeonIceLake, XeonSapphireRapids, XeonEmeraldRapids };
struct SocketLink {
  double gbps_per_link;  // GB/s per direction
  int links;
};
[[nodiscard]] SocketLink socket_link(CpuPlatform p);
[[nodiscard]] std::string_view to_string(CpuPlatform p);

}  // namespace collsim
