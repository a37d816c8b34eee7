// Fewest-hop paths between two nodes of a link graph, found by a bidirectional
// breadth-first search that only explores what it must (a few hundred nodes on a
// 16384-GPU fat tree), with equal-cost paths chosen by a stable hash (ECMP). Hop counts,
// no units.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "sim/topo/link_id.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// An edge of the link graph carries its link's index in Topology::links.
struct LinkEdge {
  LinkId link = 0;
};
// Compressed sparse rows both ways (out- and in-edges): built once from the link list, a
// vertex's out-edges in link order, about 16 bytes per link (an adjacency_list of lists
// took ~75 and one allocation per link, which dominated loading a 1.7 M-link fabric).
using LinkGraphType = boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property, LinkEdge,
                                                         boost::no_property, std::uint32_t, std::uint32_t>;
// The graph of `topo`'s links.
[[nodiscard]] LinkGraphType make_link_graph(const Topology& topo);

class ShortestPaths {
 public:
  // Scratch space for `topo`'s nodes. The graph is passed to each query, so the owner
  // may move both.
  explicit ShortestPaths(const Topology& topo);

  // Which nodes a path may pass through (besides its two ends).
  using TransitRule = std::function<bool(NodeIndex)>;

  // How a hop chooses among equal-cost links: by hash(seed, hop) mod (number of
  // candidates), as an Ethernet/RoCE switch's ECMP hash does; or, where the candidates are
  // InfiniBand links and the destination has an ordinal, by destination: candidate
  // (destination mod number of candidates), the D-mod-K rule of OpenSM's fat-tree routing
  // (an InfiniBand switch forwards by destination LID alone). Candidates in link order.
  struct Choice {
    std::uint64_t seed = 0;
    std::optional<std::uint64_t> destination;
  };
  // Appends to `out` the links of a fewest-hop path from `from` to `to` whose inner
  // nodes satisfy `transit`, equal-cost hops chosen by `choice`. False if none.
  bool find(const LinkGraphType& graph, NodeIndex from, NodeIndex to, const TransitRule& transit, Choice choice,
            std::vector<LinkId>& out);

  // Links the last find() looked at: its work, independent of the machine (a route across
  // a star's hub looks at a handful, not at the hub's link to every host).
  [[nodiscard]] std::size_t last_links_scanned() const { return scanned_; }

  // Paths of one or two hops (a direct link, or one switch between: most routes inside a
  // host, and a GPU's way to its NIC) are found without the search, with the same links
  // it would pick. Off: every query searches (to check the shortcut against the search).
  void set_shortcut(bool on) { shortcut_ = on; }

 private:
  void reset();
  // The shortcut: true with the links appended when the fewest hops are 1 or 2, false
  // (nothing appended) when they are more, or when the ends' degrees make it no cheaper.
  bool find_short(const LinkGraphType& graph, NodeIndex from, NodeIndex to, const TransitRule& transit, Choice choice,
                  std::vector<LinkId>& out);
  // Among candidate links in link order, the one a hop takes (Choice's rule).
  [[nodiscard]] LinkId pick(const std::vector<LinkId>& candidates, const Choice& choice, int hop) const;

  const Topology* topo_;
  // Per-node scratch, valid when its stamp equals the current query's; kept together so
  // a visit touches one cache line.
  struct Mark {
    std::uint32_t fwd_stamp = 0, bwd_stamp = 0, dist_stamp = 0;
    std::uint16_t fwd = 0, bwd = 0, to_go = 0;  // hops from `from`, hops to `to`, hops left on a shortest path
  };
  std::vector<Mark> mark_;
  std::vector<NodeIndex> fwd_order_;              // forward-visited nodes in discovery order
  std::vector<NodeIndex> ffront_, bfront_, next_;
  std::vector<LinkId> choices_, second_;  // a hop's candidate links; the shortcut's second hop's
  std::vector<NodeIndex> bwd_order_;             // backward-visited nodes, level by level
  std::vector<std::size_t> bwd_level_start_;     // level k is bwd_order_[start[k], start[k+1])
  std::uint32_t stamp_ = 0;
  std::size_t scanned_ = 0;  // links looked at by the current query
  bool shortcut_ = true;
};

// A stable 64-bit mix (splitmix64 finaliser) of a few integers; the same inputs give the
// same value on every platform and run.
[[nodiscard]] std::uint64_t stable_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c);

}  // namespace collsim
