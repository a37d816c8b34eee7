// NCCL's transports inside a host (src/graph/paths.cc: ncclTopoCheckP2p, ncclTopoCheckGdr,
// ncclTopoComputePaths): which GPU pairs talk over P2P (CUDA peer access, over NVLink or
// PCIe) and which through host memory (the SHM transport), and which GPUs let the NIC
// reach their memory directly (GPUDirect RDMA) and which stage network data in host
// memory. Where NCCL cannot use P2P or GPUDirect RDMA it diverts the path through a CPU:
// between GPUs through the CPU nearest the receiving GPU, between a GPU and a NIC through
// the CPU nearest the GPU. Those diverted routes are what NCCL's search prices and what
// the data crosses, so they load the links up to the CPU and back (a PCIe switch's uplink
// twice) where a P2P route would have turned at the switch.
#pragma once

#include <optional>
#include <string>

#include "sim/coll/nccl/path_type.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct NcclTransportLevels {
  // NCCL_P2P_LEVEL (NCCL_P2P_DISABLE=1: LOC): the farthest path type P2P is used over.
  // Unset: NCCL's default for the host (nccl_default_p2p_level).
  std::optional<PathType> p2p_level;
  // NCCL_NET_GDR_LEVEL: the farthest GPU-to-NIC path type GPUDirect RDMA is used over.
  // Unset: PXB, NCCL's default.
  std::optional<PathType> gdr_level;

  [[nodiscard]] PathType gdr() const { return gdr_level.value_or(PathType::Pxb); }
  bool operator==(const NcclTransportLevels&) const = default;
};

// Routes end to end: the parts' links in order, their latencies summed; nullopt if any
// part is missing.
[[nodiscard]] std::optional<Route> join_routes(std::initializer_list<std::optional<Route>> parts);

// The CPU nearest `gpu` (fewest links; the lower node index on a tie) inside its host, or
// nullopt where the topology gives the host no CPU node.
[[nodiscard]] std::optional<NodeIndex> local_cpu(LinkGraph& graph, NodeIndex gpu);

// ncclTopoCheckP2p's level without NCCL_P2P_LEVEL, for a host whose first CPU is
// `platform` and which runs `gpus` of the communicator's GPUs: PXB, "don't use P2P across
// CPU host bridges and further apart", except SYS on AMD x86 hosts with at most 2 GPUs
// (NCCL 2.23 and later; before, SYS except on Intel, Zhaoxin and ARM hosts). A host that
// names no CPU gets PXB, the default of every CPU but that exception.
[[nodiscard]] PathType nccl_default_p2p_level(std::optional<HostCpu> platform, int gpus);

// ncclTopoCheckP2p: P2P between GPUs `a` and `b` whose direct route has type `direct`,
// under P2P level `level`. No P2P beyond the level, and none over PCIe where either GPU's
// driver offers no PCIe peer access (GpuSpec::pcie_p2p; NVML's P2P status); NVLink pairs
// keep P2P unless the level is LOC.
[[nodiscard]] bool nccl_p2p(const Topology& topo, NodeIndex a, NodeIndex b, PathType direct, PathType level);

// Whether the net transport of `nic` reads and writes GPU memory (NCCL_PTR_CUDA in its
// ptrSupport): what a transport the topology names says (Node::net_gpu_direct), else by its
// network link. InfiniBand and RoCE run NCCL's verbs transport (net_ib.cc: GPUDirect RDMA
// with nv_peermem or DMA-BUF); a NIC on Ethernet alone runs NCCL's socket transport
// (net_socket.cc: ptrSupport = NCCL_PTR_HOST), host memory only.
[[nodiscard]] bool nic_gpu_direct(const LinkGraph& graph, NodeIndex nic);

// ncclTopoCheckGdr: GPUDirect RDMA between `gpu` and a NIC at path type `distance` (for a
// PXN exit, the proxy GPU's distance to the NIC): the GPU supports it
// (GpuSpec::gpudirect_rdma), so does the NIC's transport (`nic_gpu_direct`), and the
// distance is within the level.
[[nodiscard]] bool nccl_gdr(const Topology& topo, NodeIndex gpu, bool nic_gpu_direct, PathType distance,
                            const NcclTransportLevels& levels);

// The route from `from` to `to` through the CPU nearest `near` (staging in that CPU's
// memory); the direct route where the host has no CPU node.
[[nodiscard]] std::optional<Route> route_via_cpu(LinkGraph& graph, NodeIndex from, NodeIndex to, NodeIndex near);

// The route data takes from GPU `a` to GPU `b` of one host: the direct route under P2P at
// `p2p_level`, else through the CPU nearest `b` (SHM). `shm`, if given, says which.
[[nodiscard]] std::optional<Route> nccl_gpu_route(LinkGraph& graph, NodeIndex a, NodeIndex b, PathType p2p_level,
                                                  bool* shm = nullptr);

// A level as NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL spell it: a path type name (LOC, NVL,
// PIX, PXB, PHB, SYS; any case) or NCCL's legacy integers (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4
// and above SYS). nullopt for anything else.
[[nodiscard]] std::optional<PathType> nccl_level_from(std::string_view text, bool allow_nvl);

}  // namespace collsim
