// NCCL's hardware latency classes (reference/nccl-model.md s. 1, 3): NVLINK for NVLink
// and NVSwitch links, PCI for PCIe, NET for InfiniBand, RoCE and Ethernet. A route is
// priced by the slowest class it crosses.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

enum class LinkClass : std::uint8_t { NvLink = 0, Pci = 1, Net = 2 };
template <>
inline constexpr auto kEnumNames<LinkClass> = names_in_order<LinkClass>({"nvlink", "pci", "net"});
inline constexpr int kLinkClasses = 3;

[[nodiscard]] LinkClass link_class(LinkKind kind);
// The highest class (NET > PCI > NVLINK) among `links` of `topo`; NVLINK when empty.
[[nodiscard]] LinkClass route_class(const Topology& topo, std::span<const LinkId> links);

// Every link's class by id, for pricing millions of routes: a byte per link read instead of
// the link itself (a cache miss each on a fabric of 10^6 links).
class LinkClassTable {
 public:
  explicit LinkClassTable(const Topology& topo);
  // route_class(topo, links), from the table.
  [[nodiscard]] LinkClass route_class(std::span<const LinkId> links) const;

 private:
  std::vector<LinkClass> of_;
};

}  // namespace collsim
