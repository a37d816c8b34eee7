#include "sim/topo/server_generators.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

// One NVLink (2.0, 3.0 and 4.0 alike) carries 25 GB/s per direction: V100 datasheet
// "NVLink 300 GB/s" over 6 links, A100 "600 GB/s" over 12, H100/H200 "900 GB/s" over 18
// (bidirectional totals, so 50 GB/s per link both ways together). NVLink 5 doubles it:
// B200 datasheet "1.8 TB/s" over 18 links = 50 GB/s per link per direction.
constexpr double kNvLinkLaneGBps = 25.0;
constexpr double kNvLink5LaneGBps = 50.0;

struct ServerBuilder {
  Topology& t;
  const ServerSpec& spec;
  const std::string& prefix;
  ServerPorts ports;

  NodeIndex node(const std::string& local, NodeKind kind, std::string model = {}) {
    const NodeIndex n = t.add_node(prefix + local, kind, std::move(model));
    if (kind != NodeKind::Host) t.nodes[n].host = ports.host;
    return n;
  }
  void pcie(NodeIndex a, NodeIndex b, int gen) {
    t.add_duplex(a, b, LinkKind::Pcie, pcie_lane_rate(gen), 16, spec.pcie_latency, 0);
  }
  void nvlink(NodeIndex a, NodeIndex b, LinkKind kind, int lanes, double lane_gbps = kNvLinkLaneGBps) {
    t.add_duplex(a, b, kind, Bandwidth::gb_per_s(lane_gbps), lanes, spec.nvlink_latency, 0);
  }
  void socket_links(NodeIndex cpu0, NodeIndex cpu1, CpuPlatform p) {
    const SocketLink s = socket_link(p);
    t.add_duplex(cpu0, cpu1, LinkKind::Pcie, Bandwidth::gb_per_s(s.gbps_per_link), s.links, spec.pcie_latency, 0);
  }

  // Two sockets joined by their socket links; four PCIe switches, two per socket; eight
  // GPUs, two per switch; NICs spread evenly over the switches (NIC j on switch j*4/nics).
  // GPU g's own NIC is NIC g*nics/8: the NIC nearest to it, and rail i for GPU i when
  // there are 8 NICs.
  void pcie_tree(int gen, CpuPlatform cpus, const std::string& gpu_model, int nic_count) {
    ports.host = t.add_node(prefix + "host", NodeKind::Host);
    const NodeIndex cpu0 = node("cpu0", NodeKind::Cpu);
    const NodeIndex cpu1 = node("cpu1", NodeKind::Cpu);
    t.nodes[cpu0].memory_bandwidth = t.nodes[cpu1].memory_bandwidth = socket_memory_bandwidth(cpus);
    t.nodes[cpu0].platform = t.nodes[cpu1].platform = host_cpu(cpus);
    socket_links(cpu0, cpu1, cpus);
    std::array<NodeIndex, 4> sw{};
    for (int s = 0; s < 4; ++s) {
      sw[s] = node(fmt::format("pcie{}", s), NodeKind::PcieSwitch);
      pcie(sw[s], s < 2 ? cpu0 : cpu1, gen);
    }
    for (int g = 0; g < 8; ++g) {
      const NodeIndex gpu = node(fmt::format("gpu{}", g), NodeKind::Gpu, gpu_model);
      pcie(gpu, sw[g / 2], gen);
      ports.gpus.push_back(gpu);
    }
    for (int j = 0; j < nic_count; ++j) {
      const NodeIndex nic = node(fmt::format("nic{}", j), NodeKind::Nic);
      pcie(nic, sw[j * 4 / nic_count], gen);
      ports.nics.push_back(nic);
    }
    if (nic_count > 0) {
      for (int g = 0; g < 8; ++g) t.nodes[ports.gpus[g]].nic = ports.nics[g * nic_count / 8];
    }
  }

  // One non-blocking crossbar standing for the server's NVSwitch chips; each GPU joins it
  // with all its NVLinks bundled into one link of `lanes` x `lane_gbps` GB/s.
  void nvswitch(int lanes, double lane_gbps = kNvLinkLaneGBps) {
    const NodeIndex sw = node("nvswitch", NodeKind::NvSwitch);
    for (NodeIndex gpu : ports.gpus) nvlink(gpu, sw, LinkKind::NvSwitch, lanes, lane_gbps);
  }

  // An explicit server: the layout's nodes with `prefix` on their ids, all in its one
  // host, and its links; GPUs and NICs keep the layout's node order.
  void copy_layout(const Topology& layout) {
    const auto base = static_cast<NodeIndex>(t.nodes.size());
    std::optional<NodeIndex> host;
    for (const Node& n : layout.nodes) {
      Node copy = n;
      copy.id = prefix + n.id;
      if (copy.nic) *copy.nic += base;
      t.nodes.push_back(std::move(copy));
      const auto i = static_cast<NodeIndex>(t.nodes.size() - 1);
      if (n.kind == NodeKind::Host) host = i;
      if (n.kind == NodeKind::Gpu) ports.gpus.push_back(i);
      if (n.kind == NodeKind::Nic) ports.nics.push_back(i);
    }
    if (!host) throw InternalError("add_server: an explicit layout without a host node");
    ports.host = *host;
    for (NodeIndex i = base; i < t.nodes.size(); ++i) {
      if (i != *host) t.nodes[i].host = *host;
    }
    for (DirectedLink l : layout.links) {
      l.from += base;
      l.to += base;
      t.links.push_back(l);
    }
  }

  // DGX-1 with V100 (NVIDIA DGX-1 System Architecture white paper, fig. "hybrid cube-mesh"):
  // two fully connected quads 0-3 and 4-7; each GPU's six NVLinks go 1 or 2 to each of
  // three quad peers and 2 or 1 to its counterpart in the other quad.
  void hybrid_cube_mesh() {
    struct Pair { int a, b, lanes; };
    constexpr std::array<Pair, 16> kPairs{{
        {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {1, 2, 2}, {1, 3, 1}, {2, 3, 2},  // quad 0
        {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2},  // quad 1
        {0, 4, 2}, {1, 5, 2}, {2, 6, 1}, {3, 7, 1},                        // between quads
    }};
    for (const Pair& p : kPairs) nvlink(ports.gpus[p.a], ports.gpus[p.b], LinkKind::NvLink, p.lanes);
  }
};

}  // namespace

int default_nic_count(ServerKind k) {
  switch (k) {
    case ServerKind::Dgx1V100: return 4;  // DGX-1 datasheet: 4x InfiniBand EDR 100 Gb/s
    case ServerKind::DgxA100: return 8;   // DGX A100 datasheet: 8x single-port ConnectX-6 200 Gb/s HDR
    case ServerKind::DgxH100: return 8;   // DGX H100 datasheet: 8x single-port ConnectX-7 400 Gb/s
    case ServerKind::HgxH200: return 8;   // HGX H200 8-GPU: one 400 Gb/s ConnectX-7 per GPU (NVIDIA reference design)
    case ServerKind::DgxB200: return 8;   // DGX B200 datasheet: 8x single-port ConnectX-7 400 Gb/s
    case ServerKind::Pcie8Gpu: return 1;
    case ServerKind::CpuHost: return 1;
    case ServerKind::Explicit: return 0;  // add_server counts the layout's NICs
  }
  return 1;
}

// Links between the two CPU sockets, per direction, all links together:
// - Xeon E5-2698 v4 (DGX-1): 2 QPI links at 9.6 GT/s x 2 bytes = 19.2 GB/s each (Intel ARK).
// - EPYC 7742 (DGX A100): up to 4 xGMI links x16 between sockets (AMD EPYC 7002 platform);
//   16 GT/s per lane assumed (the PCIe Gen4 PHY they share): ~31.5 GB/s each.
// - Xeon Platinum 8480C (DGX H100, HGX H200 hosts): 4 UPI links at 16 GT/s x 2 bytes = 32 GB/s each.
// - Xeon Platinum 8570 (DGX B200): 4 UPI links at 20 GT/s x 2 bytes = 40 GB/s each.
// - Xeon 3rd gen Scalable (the PCIe box): 3 UPI links at 11.2 GT/s x 2 bytes = 22.4 GB/s each.
// - Xeon Platinum 8275CL (AWS p3dn, p4d): 3 UPI links at 10.4 GT/s x 2 bytes = 20.8 GB/s each
//   (Intel ARK, 2nd gen Xeon Scalable Platinum 82xx).
namespace {

constexpr auto kCpuKeys = name_table<CpuPlatform>({{CpuPlatform::XeonBroadwell, "xeon-e5-v4"},
                                                   {CpuPlatform::XeonCascadeLake, "xeon-cascade-lake"},
                                                   {CpuPlatform::XeonIceLake, "xeon-ice-lake"},
                                                   {CpuPlatform::XeonSapphireRapids, "xeon-sapphire-rapids"},
                                                   {CpuPlatform::XeonEmeraldRapids, "xeon-emerald-rapids"},
                                                   {CpuPlatform::Epyc7002, "epyc-7002"}});

}  // namespace

std::optional<CpuPlatform> cpu_platform_from_key(std::string_view key) { return kCpuKeys.parse(key); }
std::vector<std::string> cpu_platform_keys() { return kCpuKeys.names(); }

SocketLink socket_link(CpuPlatform p) {
  switch (p) {
    case CpuPlatform::XeonCascadeLake: return {20.8, 3};
    case CpuPlatform::XeonBroadwell: return {19.2, 2};
    case CpuPlatform::Epyc7002: return {31.5, 4};
    case CpuPlatform::XeonIceLake: return {22.4, 3};
    case CpuPlatform::XeonSapphireRapids: return {32.0, 4};
    case CpuPlatform::XeonEmeraldRapids: return {40.0, 4};
  }
  throw InternalError("socket_link: unknown CPU platform");
}

// NCCL's class of each (topo.cc, by CPUID): E5-2698 v4 is Broadwell (model 79); Cascade
// Lake (85) and Ice Lake-SP (106) fall in NCCL's Skylake class; the 8480C (143) is Sapphire
// Rapids, the 8570 (207) Emerald Rapids; EPYC is AMD.
HostCpu host_cpu(CpuPlatform p) {
  switch (p) {
    case CpuPlatform::XeonCascadeLake: return HostCpu::IntelSkylake;
    case CpuPlatform::XeonBroadwell: return HostCpu::IntelBroadwell;
    case CpuPlatform::Epyc7002: return HostCpu::Amd;
    case CpuPlatform::XeonIceLake: return HostCpu::IntelSkylake;
    case CpuPlatform::XeonSapphireRapids: return HostCpu::IntelSapphireRapids;
    case CpuPlatform::XeonEmeraldRapids: return HostCpu::IntelEmeraldRapids;
  }
  throw InternalError("host_cpu: unknown CPU platform");
}

// DRAM per socket, channels x MT/s x 8 B:
// - Xeon E5-2698 v4: 4 channels of DDR4-2400, 76.8 GB/s (Intel ARK, "Max Memory Bandwidth").
// - EPYC 7742: 8 channels of DDR4-3200, 204.8 GB/s (AMD EPYC 7002 product page, "Per
//   Socket Mem BW").
// - Xeon 3rd gen Scalable (Platinum 8380 class): 8 channels of DDR4-3200, 204.8 GB/s.
// - Xeon Platinum 8480C: 8 channels of DDR5-4800, 307.2 GB/s (Intel ARK, 8480+).
// - Xeon Platinum 8570: 8 channels of DDR5-5600, 358.4 GB/s (Intel ARK).
// - Xeon Platinum 8275CL: 6 channels of DDR4-2933, 140.8 GB/s (Intel ARK).
Bandwidth socket_memory_bandwidth(CpuPlatform p) {
  const auto dram = [](int channels, double mts) { return Bandwidth::gb_per_s(channels * mts * 8.0 / 1000.0); };
  switch (p) {
    case CpuPlatform::XeonCascadeLake: return dram(6, 2933);
    case CpuPlatform::XeonBroadwell: return dram(4, 2400);
    case CpuPlatform::Epyc7002: return dram(8, 3200);
    case CpuPlatform::XeonIceLake: return dram(8, 3200);
    case CpuPlatform::XeonSapphireRapids: return dram(8, 4800);
    case CpuPlatform::XeonEmeraldRapids: return dram(8, 5600);
  }
  throw InternalError("socket_memory_bandwidth: unknown CPU platform");
}

Bandwidth nvlink_lane_rate(int version) {
  if (version < 2 || version > 5) throw InternalError(fmt::format("nvlink_lane_rate: NVLink {}", version));
  return Bandwidth::gb_per_s(version == 5 ? kNvLink5LaneGBps : kNvLinkLaneGBps);
}

Bandwidth pcie_lane_rate(int gen) {
  const double gts = gen == 3 ? 8.0 : gen == 4 ? 16.0 : 32.0;
  return Bandwidth{gts * 1e9 * 128.0 / 130.0 / 8.0};
}

ServerPorts add_server(Topology& t, const ServerSpec& spec, const std::string& prefix) {
  ServerBuilder b{t, spec, prefix, {}};
  if (spec.kind == ServerKind::Explicit) {
    if (!spec.layout || spec.nics) throw InternalError("add_server: an explicit server needs a layout and no NIC count");
    b.copy_layout(*spec.layout);
    return b.ports;
  }
  const int nics = spec.nics.value_or(default_nic_count(spec.kind));
  if (nics < 0 || nics > 64) throw InternalError(fmt::format("add_server: {} NICs", nics));
  switch (spec.kind) {
    case ServerKind::Dgx1V100:
      // PCIe Gen3 switches (PLX) under two Xeon E5-2698 v4 sockets (DGX-1 white paper).
      b.pcie_tree(3, spec.cpu.value_or(CpuPlatform::XeonBroadwell), "V100", nics);
      b.hybrid_cube_mesh();
      break;
    case ServerKind::DgxA100:
      // Six NVSwitch 2.0 chips, 12 NVLinks per GPU; PCIe Gen4 under two EPYC 7742.
      b.pcie_tree(4, spec.cpu.value_or(CpuPlatform::Epyc7002), spec.gpu_model, nics);  // the 80 GB or the first 40 GB A100
      b.nvswitch(12);
      break;
    case ServerKind::DgxH100:
      // Four NVSwitch 3.0 chips, 18 NVLinks per GPU; PCIe Gen5 under two Xeon 8480C.
      b.pcie_tree(5, spec.cpu.value_or(CpuPlatform::XeonSapphireRapids), "H100", nics);
      b.nvswitch(18);
      break;
    case ServerKind::HgxH200:
      // Same baseboard design as HGX H100 (18 NVLinks per GPU, 900 GB/s); host CPUs as DGX H100.
      b.pcie_tree(5, spec.cpu.value_or(CpuPlatform::XeonSapphireRapids), "H200", nics);
      b.nvswitch(18);
      break;
    case ServerKind::DgxB200:
      // Two NVSwitch chips (NVLink 5), 18 NVLinks per GPU; PCIe Gen5 under two Xeon 8570.
      b.pcie_tree(5, spec.cpu.value_or(CpuPlatform::XeonEmeraldRapids), "B200", nics);
      b.nvswitch(18, kNvLink5LaneGBps);
      break;
    case ServerKind::Pcie8Gpu:
      b.pcie_tree(spec.pcie_gen, spec.cpu.value_or(CpuPlatform::XeonIceLake), spec.gpu_model, nics);
      break;
    case ServerKind::Explicit:
      break;  // handled above
    case ServerKind::CpuHost: {
      // The host is the rank; its NICs hang off the root complex.
      b.ports.host = t.add_node(prefix + "host", NodeKind::Host);
      for (int j = 0; j < nics; ++j) {
        const NodeIndex nic = b.node(fmt::format("nic{}", j), NodeKind::Nic);
        b.pcie(b.ports.host, nic, spec.pcie_gen);
        b.ports.nics.push_back(nic);
      }
      break;
    }
  }
  return b.ports;
}

Topology make_server(const ServerSpec& spec) {
  Topology t;
  t.name = std::string(to_string(spec.kind));
  t.source = fmt::format("generator:{}", to_string(spec.kind));
  const ServerPorts p = add_server(t, spec, "");
  if (spec.kind == ServerKind::CpuHost) {
    t.ranks.push_back(p.host);
  } else {
    t.ranks = p.gpus;
  }
  return t;
}

}  // namespace collsim
