#include "sim/topo/fabric_generators.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/name_table.hpp"
#include "sim/topo/link_overhead.hpp"

namespace collsim {

FabricSize fabric_size_bound(const FabricSpec& spec, std::size_t hosts, std::size_t nics_per_host) {
  const std::size_t nics = hosts * nics_per_host;
  if (spec.kind == FabricKind::Star) return {1, 2 * nics};
  const auto per_leaf = static_cast<std::size_t>(std::max(1, spec.nics_per_leaf));
  const std::size_t leaves = spec.kind == FabricKind::FatTree ? (nics + per_leaf - 1) / per_leaf
                                                              : nics_per_host * ((hosts + per_leaf - 1) / per_leaf);
  const auto spines = static_cast<std::size_t>(std::max(0, spec.spines));
  return {leaves + spines, 2 * (nics + leaves * spines)};
}

FabricSummary add_fabric(Topology& t, const FabricSpec& spec, const std::vector<std::vector<NodeIndex>>& host_nics,
                         const std::string& prefix) {
  const int mtu = spec.link_kind == LinkKind::Ethernet ? (spec.mtu == 0 ? kDefaultMtu : spec.mtu) : 0;
  auto connect = [&](NodeIndex a, NodeIndex b, Bandwidth rate) {
    t.add_duplex(a, b, spec.link_kind, rate, 1, spec.latency, mtu);
  };
  FabricSummary out;
  if (spec.kind == FabricKind::Star) {
    const NodeIndex sw = t.add_node(prefix + "switch", NodeKind::Switch);
    for (const auto& nics : host_nics) {
      for (NodeIndex n : nics) connect(n, sw, spec.nic_bandwidth);
    }
    out.leaves = 1;
    return out;
  }
  if (spec.nics_per_leaf < 1 || spec.spines < 1 || spec.oversubscription < 1.0) {
    throw InternalError("add_fabric: nics_per_leaf, spines and oversubscription must be >= 1");
  }
  const auto per_leaf = static_cast<std::size_t>(spec.nics_per_leaf);
  std::vector<NodeIndex> leaves;
  std::map<std::pair<std::size_t, std::size_t>, NodeIndex> leaf_of;
  auto leaf = [&](std::size_t rail, std::size_t group) {
    // Leaves are created on first use, in rail-major order, so ids are deterministic.
    if (auto it = leaf_of.find({rail, group}); it != leaf_of.end()) return it->second;
    const std::string id = spec.kind == FabricKind::RailOptimized ? fmt::format("{}leaf{}.{}", prefix, rail, group)
                                                                   : fmt::format("{}leaf{}", prefix, group);
    const NodeIndex n = t.add_node(id, NodeKind::Switch);
    leaves.push_back(n);
    leaf_of.emplace(std::pair{rail, group}, n);
    return n;
  };
  if (spec.kind == FabricKind::FatTree) {
    std::size_t k = 0;
    for (const auto& nics : host_nics) {
      for (NodeIndex n : nics) connect(n, leaf(0, k++ / per_leaf), spec.nic_bandwidth);
    }
  } else {
    std::size_t rails = 0;
    for (const auto& nics : host_nics) rails = std::max(rails, nics.size());
    for (std::size_t r = 0; r < rails; ++r) {
      for (std::size_t h = 0; h < host_nics.size(); ++h) {
        if (r < host_nics[h].size()) connect(host_nics[h][r], leaf(r, h / per_leaf), spec.nic_bandwidth);
      }
    }
  }
  out.leaves = static_cast<int>(leaves.size());
  if (leaves.size() <= 1) return out;
  out.spines = spec.spines;
  out.uplink = Bandwidth{spec.nic_bandwidth.bytes_per_s * spec.nics_per_leaf / (spec.oversubscription * spec.spines)};
  std::vector<NodeIndex> spines;
  for (int s = 0; s < spec.spines; ++s) spines.push_back(t.add_node(fmt::format("{}spine{}", prefix, s), NodeKind::Switch));
  for (NodeIndex l : leaves) {
    for (NodeIndex s : spines) connect(l, s, out.uplink);
  }
  return out;
}

}  // namespace collsim
