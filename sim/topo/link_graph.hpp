// The topology as a Boost.Graph of directed links, and routes between ranks: fewest
// hops, transiting only switch-like nodes (never through a GPU or a host). Inside a host
// NVLink paths (direct or through an NVSwitch) win over PCIe. A GPU with its
// own NIC reaches other hosts through that NIC (rail-aware): inside its host to the NIC,
// across the fabric (switches only) to the peer's NIC, inside the peer's host to it.
// Equal-cost paths are spread by a stable hash of (source, destination, flow id), except
// InfiniBand hops towards a NIC or host, which choose by the destination's ordinal (D-mod-K,
// see ShortestPaths::Choice). Routes are computed on demand and cached per (source, destination, flow id).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/topo/link_id.hpp"
#include "sim/topo/shortest_paths.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct Route {
  std::vector<LinkId> links;  // indices into Topology::links, in path order
  Time latency;               // sum of the links' latencies
};

class LinkGraph {
 public:
  using Graph = LinkGraphType;

  explicit LinkGraph(const Topology& topo);

  [[nodiscard]] const Topology& topology() const { return topo_; }
  [[nodiscard]] const Graph& graph() const { return graph_; }

  // Route from rank src to rank dst (empty for src == dst); flow id 0. Throws
  // ConfigError if none. The reference stays valid as long as the LinkGraph.
  [[nodiscard]] const Route& route(int src_rank, int dst_rank);
  // The same for one of several flows between the pair: equal-cost Ethernet/RoCE paths
  // are chosen by a stable hash of (src, dst, flow), so different flows may take
  // different spines; InfiniBand paths to a NIC or host depend on the destination alone.
  [[nodiscard]] const Route& route(int src_rank, int dst_rank, std::uint32_t flow);

  // Route between two nodes (rank or not) under the same rules; nullopt if none.
  [[nodiscard]] std::optional<Route> node_route(NodeIndex from, NodeIndex to, std::uint32_t flow = 0);
  // route(src_rank, dst_rank)'s links appended to `out` without adding the route to the
  // cache (a pinned or cached one is copied), for a caller that uses each route once: the
  // tree's steady state over 10^5 ranks, whose 2 x 10^6 routes would only fill the cache.
  // Throws as route() does.
  void append_route(int src_rank, int dst_rank, std::vector<LinkId>& out);

  [[nodiscard]] std::size_t cached_routes() const { return routes_; }
  // Links the last route search looked at (ShortestPaths::last_links_scanned).
  [[nodiscard]] std::size_t last_links_scanned() const { return paths_.last_links_scanned(); }

  // Fixes the route between two ranks (every flow id) until clear_pinned_routes(): the
  // NCCL layer sends a channel's inter-host hop through the channel's NIC this way.
  void pin_route(int src_rank, int dst_rank, Route r);
  void clear_pinned_routes() { pinned_.clear(); }

  [[nodiscard]] static bool can_transit(NodeKind k);

 private:
  const Topology& topo_;
  Graph graph_;
  ShortestPaths paths_;
  // Per node: a NIC's place among the topology's NICs in node order, a host's among the
  // hosts (the order of their LIDs in D-mod-K routing; fabrics attach both in that order);
  // kNoOrdinal for other nodes.
  static constexpr std::uint32_t kNoOrdinal = UINT32_MAX;
  std::vector<std::uint32_t> ordinal_;
  // Each node's kind and host (kNoHost: none), apart from the nodes' names: what the
  // route searches' transit rules read, a few bytes per node.
  static constexpr NodeIndex kNoHost = UINT32_MAX;
  std::vector<NodeKind> kind_;
  std::vector<NodeIndex> host_;
  [[nodiscard]] ShortestPaths::Choice choice_towards(NodeIndex to, std::uint64_t seed) const;
  // Looked up once per transfer: hashed (elements never move, so references stay valid).
  struct RouteKey {
    int src, dst;
    std::uint32_t flow;
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    std::size_t operator()(const RouteKey& k) const noexcept;
  };
  // The cache: routes in blocks that never move (a route's address is handed out), found
  // through an open-addressing table of (key, route number), linear probing, at most
  // half full. A node-based map cost an allocation per route and most of a 131,072-GPU
  // prediction's lookups in pointer chasing.
  static constexpr std::size_t kRouteBlock = 4096;
  static constexpr std::uint32_t kNoRoute = UINT32_MAX;
  struct Slot {
    RouteKey key;
    std::uint32_t route = kNoRoute;
  };
  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<Route[]>> blocks_;
  std::size_t routes_ = 0;
  [[nodiscard]] Slot& slot_for(const RouteKey& key);  // its slot, or the empty one it would take
  const Route& store(Slot& slot, const RouteKey& key, Route r);
  std::unordered_map<RouteKey, Route, RouteKeyHash> pinned_;  // flow 0: every flow id
  // Flow 0's routes by src * ranks + dst (pointers into the cache), when the ranks are few
  // enough for a dense table (kDenseRouteRanks): a replay looks one up per transfer, and an
  // index beats a hash lookup there.
  static constexpr int kDenseRouteRanks = 2048;
  std::vector<const Route*> dense_;
  // The table's entry for (src, dst, flow); nullptr where the table does not apply.
  [[nodiscard]] const Route** dense_entry(int src_rank, int dst_rank, std::uint32_t flow);
  [[noreturn]] void throw_no_route(int src_rank, int dst_rank) const;  // ConfigError naming the pair
  // node_route's search, its links appended to `out`; false if none (`out` unchanged).
  bool append_node_route(NodeIndex from, NodeIndex to, std::uint32_t flow, std::vector<LinkId>& out);
  // The pinned route between two ranks (every flow id), or null.
  [[nodiscard]] const Route* pinned(int src_rank, int dst_rank) const;
};

}  // namespace collsim
