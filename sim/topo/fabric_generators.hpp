// Generators for the network between servers: a single switch (star), a two-tier
// leaf/spine fat tree with a stated oversubscription, and a rail-optimised leaf/spine
// (NIC i of every host on a leaf of rail i). Bandwidths are per direction (bytes/s) of
// one NIC port, latencies one-way per link (ps), MTU in bytes (ethernet only).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/topo/net_transport.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

enum class FabricKind : std::uint8_t { Star, FatTree, RailOptimized };
template <>
inline constexpr auto kEnumNames<FabricKind> = names_in_order<FabricKind>({"star", "fat_tree", "rail_optimized"});

struct FabricSpec {
  FabricKind kind = FabricKind::FatTree;
  LinkKind link_kind = LinkKind::Ib;         // ib, roce or ethernet
  Bandwidth nic_bandwidth = Bandwidth::gbps(400);  // line rate of one NIC port
  int mtu = 0;                               // ethernet: bytes (0 = 1500)
  Time latency = Time::from_ns(500);         // per link (round figure, not a datasheet number)
  int nics_per_leaf = 32;                    // leaf downlinks (fat tree, rail-optimised)
  int spines = 1;                            // spine switches (ignored with a single leaf)
  double oversubscription = 1.0;             // leaf downlink / uplink capacity, >= 1
  std::optional<NetSetting> net;             // every NIC's "net_latency" (net_transport.hpp)
};

struct FabricSummary {
  int leaves = 0;
  int spines = 0;
  Bandwidth uplink;  // line rate of one leaf-to-spine link
};

// Connects every NIC in `host_nics` (host h's NIC i) to new switches named `prefix` +
// "switch", "leaf<r>.<g>" or "spine<s>". Star: one switch. Fat tree: NICs fill leaves in
// host order, `nics_per_leaf` each. Rail-optimised: NIC i of hosts g*n..(g+1)*n-1 goes
// to leaf i.g (n = nics_per_leaf). Every leaf joins every spine with one link of
// nics_per_leaf x nic_bandwidth / (oversubscription x spines).
// At most how many nodes and directed links add_fabric adds for `hosts` hosts of
// `nics_per_host` NICs each (to reserve storage before building a large cluster).
struct FabricSize {
  std::size_t nodes = 0;
  std::size_t links = 0;
};
[[nodiscard]] FabricSize fabric_size_bound(const FabricSpec& spec, std::size_t hosts, std::size_t nics_per_host);

FabricSummary add_fabric(Topology& t, const FabricSpec& spec, const std::vector<std::vector<NodeIndex>>& host_nics,
                         const std::string& prefix = "");

}  // namespace collsim
