// One host's paths as NCCL computes them before its channel search (src/graph/paths.cc,
// topo.cc): the routes between its GPUs and between its GPUs and NICs as NCCL's transports
// take them (P2P or SHM through a CPU, GPUDirect RDMA or staging in host memory), their
// path types, the PCIe charge of a path through an Intel root complex, each NIC's own GPU
// and network links, and every link's bandwidth as NCCL counts it (GB/s).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl/path_type.hpp"
#include "sim/coll/nccl/transport.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct NcclHostPaths {
  // Routes as NCCL's transports take them (transport.hpp): through a CPU between GPUs
  // without P2P at `p2p_level` and between a GPU and a NIC without GPUDirect RDMA
  // (`nic_gdr`: each NIC's transport has it).
  NcclHostPaths(LinkGraph& graph, const GpuSpec& gpu, const NcclHost& host, PathType p2p_level,
                const NcclTransportLevels& levels, const std::vector<bool>& nic_gdr);

  const Topology& topo;
  const NcclHost& host;
  // Local GPU a to GPU b, GPU a to NIC k, NIC k to GPU a; their path types (NET: no path
  // inside the host); the PCIe charge of each (root_complex_charge).
  std::vector<std::vector<Route>> gg, gn, ng;
  std::vector<std::vector<PathType>> gg_type, gn_type;
  std::vector<std::vector<double>> gg_rc, gn_rc;
  std::vector<std::vector<bool>> shm, staged;  // GPU pair through host memory; GPU-NIC staged
  std::vector<int> nic_gpu;                    // each NIC's own GPU (else the nearest)
  std::vector<std::optional<LinkId>> nic_out, nic_in;  // each NIC's first network link each way
  std::vector<double> capacity;                // per link: NCCL's bandwidth (GB/s)
  int first_nic = 0;                           // the NIC the first channel tries first
  struct Hops {
    std::vector<LinkId> first, last;  // a GPU's distinct first links out and last links in
  };
  std::vector<Hops> hops;  // per local GPU

  [[nodiscard]] int gpus() const { return static_cast<int>(host.gpus.size()); }
  [[nodiscard]] int nics() const { return static_cast<int>(host.nics.size()); }
  [[nodiscard]] int own_gpu(int k) const { return nic_gpu[static_cast<std::size_t>(k)]; }

  // The least capacity of `links`.
  [[nodiscard]] double bottleneck(std::span<const LinkId> links) const;
  // The largest speed any single hop can carry (across hosts: and any NIC's legs): NCCL
  // starts its search below it.
  [[nodiscard]] double max_speed(bool multi) const;
  // How far GPU a's traffic has to go to NIC k, counting PXN (through the NIC's own GPU
  // over NVLink) when that is closer than its own path.
  [[nodiscard]] PathType exit_type(int a, int k) const;
  // ncclTopoCheckGdr's distance from GPU a to NIC k: its direct path type, or where PXN
  // carries its traffic (beyond PXB, to a GPU over NVLink within PXB of the NIC) that GPU's.
  [[nodiscard]] PathType gdr_distance(std::size_t a, std::size_t k) const;
  // search.cc followPath: "account for P2P inefficiency through Intel CPU RC": a path of
  // type PHB from a GPU through an Intel CPU charges its PCIe links 6/5 of the channel's
  // speed (INTEL_P2P_OVERHEAD, topo.h); 1 for any other.
  [[nodiscard]] double root_complex_charge(const Route& r, PathType type) const;
};

}  // namespace collsim
