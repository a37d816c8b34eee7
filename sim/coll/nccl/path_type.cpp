#include "sim/coll/nccl/path_type.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "sim/core/name_table.hpp"

namespace collsim {

std::optional<PathType> path_type_from(std::string_view s) {
  std::string up(s);
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return std::toupper(c); });
  return enum_from<PathType>(up);
}

PathType classify_route(const Topology& topo, const Route& route) {
  if (route.links.empty()) return PathType::Loc;
  bool nvlink_only = true;
  int pcie_switches = 0;
  int cpus = 0;
  for (std::size_t i = 0; i < route.links.size(); ++i) {
    const DirectedLink& l = topo.links[route.links[i]];
    if (l.kind != LinkKind::NvLink && l.kind != LinkKind::NvSwitch) nvlink_only = false;
    if (l.kind == LinkKind::Ib || l.kind == LinkKind::Roce || l.kind == LinkKind::Ethernet) return PathType::Net;
    if (i + 1 == route.links.size()) break;  // the last node is the destination, not a transit
    const Node& via = topo.nodes[l.to];
    if (via.kind == NodeKind::PcieSwitch) ++pcie_switches;
    if (via.kind == NodeKind::Cpu) ++cpus;
    if (via.kind == NodeKind::Switch) return PathType::Net;
  }
  if (nvlink_only) return PathType::Nvl;
  if (cpus >= 2) return PathType::Sys;
  if (cpus == 1) return PathType::Phb;
  return pcie_switches <= 1 ? PathType::Pix : PathType::Pxb;
}

double nccl_nvlink_gbps(int sm) {
  // ncclTopoNVLinkBw (topo.cc, constants in topo.h): the first rule that matches.
  if (sm >= 100) return 40.1;
  if (sm >= 90) return 20.6;
  if (sm == 86) return 12.0;
  if (sm >= 70) return 20.0;  // SM70 and SM80 share 20 GB/s
  if (sm >= 60) return 18.0;
  return 20.0;                // NCCL's default for older or unknown SMs is SM80's figure
}

double nccl_nvlink_scale(const GpuSpec& gpu) {
  // Without a catalogued per-link rate (a GPU without NVLink in a topology that gives it
  // some) the topology's own rate stands.
  if (gpu.nvlink_link_gb_per_s <= 0) return 1.0;
  return nccl_nvlink_gbps(gpu.compute_capability.sm()) / gpu.nvlink_link_gb_per_s;
}

double nccl_link_gbps(const DirectedLink& link, const GpuSpec& gpu) {
  switch (link.kind) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch:
      // NCCL counts lanes x its per-link figure; collsim's link carries the datasheet rate
      // however its lanes are bundled, so scale that rate: 18 x 25 = 450 GB/s of H100
      // becomes 18 x 20.6 = 370.8.
      return link.bandwidth.gb_per_s() * nccl_nvlink_scale(gpu);
    case LinkKind::Pcie:
      // NCCL: width x (15 per 2.5 GT/s lane) / 80, i.e. 0.75 GB/s per lane per 8 GT/s,
      // 75 % of the 8b/10b-free signalling rate; collsim's line rate is GT/s x 128/130 / 8.
      return link.line_rate.gb_per_s() * 0.75 * 130.0 / 128.0;
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet: return link.line_rate.gb_per_s();
  }
  return link.line_rate.gb_per_s();
}

}  // namespace collsim
