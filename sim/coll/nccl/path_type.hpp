// NCCL's path types (src/graph/paths.cc, topo.h): how far apart two devices of one host
// are, from the closest (LOC) to the network (NET), and NCCL's own view of a link's
// bandwidth (GB/s, src/graph/topo.h constants). A route of collsim's link graph is
// classified by the nodes it passes through.
#pragma once

#include <optional>
#include <string_view>

#include "sim/coll/protocol.hpp"
#include "sim/core/name_table.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

// In NCCL's order: a path of a lower type is preferred. NVB (NVLink through another GPU)
// and C2C do not occur in collsim's routes (they never transit a GPU); PXN is a GPU
// reaching a NIC through a peer GPU over NVLink, then that GPU's PCIe switch.
enum class PathType : std::uint8_t { Loc, Nvl, Nvb, C2c, Pix, Pxb, Pxn, Phb, Sys, Net };
template <>
inline constexpr auto kEnumNames<PathType> =
    names_in_order<PathType>({"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET"});

[[nodiscard]] std::optional<PathType> path_type_from(std::string_view s);  // "NVL", "pix", ...

// The type of `route` between two nodes of one host: NVL when every link is NVLink or
// NVSwitch; else by the transit nodes: one PCIe switch PIX, several PXB, through one CPU
// PHB, through two or more CPUs SYS. A route that leaves the host is NET.
[[nodiscard]] PathType classify_route(const Topology& topo, const Route& route);

// NCCL's bandwidth for one link (GB/s): NVLink at NCCL's per-link figure for the GPU's
// compute capability per datasheet byte of the link's rate (nccl_nvlink_scale); PCIe
// 0.75 GB/s per GT/s-lane-byte as NCCL derives it from the link width and speed (Gen3
// x16 12, Gen4 24, Gen5 48); network links at their line rate (NCCL: NIC speed in Mb/s
// / 8000).
[[nodiscard]] double nccl_link_gbps(const DirectedLink& link, const GpuSpec& gpu);
// NCCL's per-NVLink figure (GB/s) for a compute capability as cudaCompCap (topo.h):
// SM60 18, SM70 and SM80 20, SM86 12, SM90 20.6, SM100 and newer 40.1.
[[nodiscard]] double nccl_nvlink_gbps(int sm);
// NCCL's NVLink figure per datasheet byte of `gpu`'s links: 20 / 25 (V100, A100),
// 20.6 / 25 (H100), 40.1 / 50 (B200), 12 / 14.0625 (RTX 3090); 1 for a GPU the catalogue
// gives no NVLink rate.
[[nodiscard]] double nccl_nvlink_scale(const GpuSpec& gpu);

}  // namespace collsim
