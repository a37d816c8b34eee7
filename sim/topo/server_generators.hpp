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

#include "sim/core/name_table.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// The host CPUs the generators know (socket_link, socket_memory_bandwidth, host_cpu below).
enum class CpuPlatform : std::uint8_t {
  XeonBroadwell,
  Epyc7002,
  XeonIceLake,
  XeonSapphireRapids,
  XeonEmeraldRapids,
  XeonCascadeLake
};
template <>
inline constexpr auto kEnumNames<CpuPlatform> = names_in_order<CpuPlatform>({
    "Xeon E5 v4 (Broadwell)", "EPYC 7002 (Rome)", "Xeon 3rd gen Scalable (Ice Lake)",
    "Xeon 4th gen Scalable (Sapphire Rapids)", "Xeon 5th gen Scalable (Emerald Rapids)",
    "Xeon 2nd gen Scalable (Cascade Lake)"});
// A server block's "cpu": the platform by a short key (xeon-e5-v4, epyc-7002, ...), and
// every key in order.
[[nodiscard]] std::optional<CpuPlatform> cpu_platform_from_key(std::string_view key);
[[nodiscard]] std::vector<std::string> cpu_platform_keys();

enum class ServerKind : std::uint8_t { Dgx1V100, DgxA100, DgxH100, HgxH200, DgxB200, Pcie8Gpu, CpuHost, Explicit };
template <>
inline constexpr auto kEnumNames<ServerKind> = names_in_order<ServerKind>({
    "dgx1_v100", "dgx_a100", "dgx_h100", "hgx_h200", "dgx_b200", "pcie_8gpu", "cpu_host", "explicit"});

struct ServerSpec {
  ServerKind kind = ServerKind::DgxH100;
  std::optional<int> nics{};          // NIC count; default: the datasheet's compute NICs
  std::string gpu_model = "A100";     // pcie_8gpu; dgx_a100 (A100 or A100-40GB)
  std::optional<CpuPlatform> cpu{};   // the host CPUs, where not the kind's own (AWS p4d: Cascade Lake)
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

struct SocketLink {
  double gbps_per_link;  // GB/s per direction
  int links;
};
[[nodiscard]] SocketLink socket_link(CpuPlatform p);
// The platform's CPU as NCCL classifies it.
[[nodiscard]] HostCpu host_cpu(CpuPlatform p);
// One socket's DRAM peak: memory channels x transfer rate x 8 bytes (the CPU's datasheet).
[[nodiscard]] Bandwidth socket_memory_bandwidth(CpuPlatform p);

}  // namespace collsim
