// The topology as a Boost.Graph of directed links, and routes between ranks: fewest
// hops, transiting only switch-like nodes (never through a GPU or a host), ties broken
// by link order in the file, so routes are deterministic. Routes are cached per pair.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct Route {
  std::vector<LinkId> links;  // indices into Topology::links, in path order
  Time latency;               // sum of the links' latencies
};

class LinkGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_index_t, std::uint32_t>>;

  explicit LinkGraph(const Topology& topo);

  [[nodiscard]] const Topology& topology() const { return topo_; }
  [[nodiscard]] const Graph& graph() const { return graph_; }

  // Route from rank src to rank dst (empty for src == dst). Throws ConfigError if none.
  [[nodiscard]] const Route& route(int src_rank, int dst_rank);

  // Nodes reachable from `from` under the transit rule; used by validation.
  [[nodiscard]] std::vector<bool> reachable_from(NodeIndex from) const;

  [[nodiscard]] static bool can_transit(NodeKind k);

 private:
  [[nodiscard]] bool shortest_path(NodeIndex from, NodeIndex to, std::vector<LinkId>& out) const;

  const Topology& topo_;
  Graph graph_;
  std::unordered_map<std::uint64_t, Route> cache_;
};

}  // namespace collsim
