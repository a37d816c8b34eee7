// The topology check's route existence (pairs_without_route, by reachability) against
// LinkGraph::node_route itself, on whole and damaged fabrics: the check must report
// exactly the pairs for which a route search would fail, in the same order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/json_fields.hpp"
#include "sim/topo/link_graph.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/topology_rules.hpp"

namespace collsim {

namespace {

std::vector<std::pair<NodeIndex, NodeIndex>> by_route_search(const Topology& t, NodeIndex anchor) {
  LinkGraph g(t);
  std::vector<std::pair<NodeIndex, NodeIndex>> out;
  for (NodeIndex r : t.ranks) {
    if (!g.node_route(anchor, r)) {
      out.emplace_back(anchor, r);
    } else if (!g.node_route(r, anchor)) {
      out.emplace_back(r, anchor);
    }
  }
  return out;
}

// Ordered pairs of ranks with no path (inner nodes switches, NICs or CPUs), one plain
// search per rank: what check_topology_rules must report, however it finds them.
std::vector<std::pair<NodeIndex, NodeIndex>> unreachable_pairs(const Topology& t) {
  std::vector<std::pair<NodeIndex, NodeIndex>> out;
  for (NodeIndex r : t.ranks) {
    std::vector<bool> seen(t.nodes.size());
    std::vector<NodeIndex> todo{r};
    seen[r] = true;
    for (std::size_t k = 0; k < todo.size(); ++k) {
      const NodeIndex v = todo[k];
      if (v != r && !LinkGraph::can_transit(t.nodes[v].kind)) continue;
      for (const DirectedLink& l : t.links) {
        if (l.from == v && !seen[l.to]) {
          seen[l.to] = true;
          todo.push_back(l.to);
        }
      }
    }
    for (NodeIndex q : t.ranks) {
      if (!seen[q]) out.emplace_back(r, q);
    }
  }
  return out;
}

Topology generated(const std::string& generator) {
  const std::string json = R"({"generator": )" + generator + "}";
  return load_topology_json(parse_json_text(json, "t.json"), "t.json");
}

}  // namespace

TEST_CASE("route existence by reachability equals the route search, whole and damaged", "[topo][validation]") {
  const std::vector<std::string> fabrics{
      R"({"kind": "cluster", "hosts": 4, "server": {"kind": "dgx_h100"}, "fabric": {"kind": "fat_tree", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 8, "spines": 2, "oversubscription": 1}})",
      R"({"kind": "cluster", "hosts": 3, "server": {"kind": "dgx_a100"}, "fabric": {"kind": "rail_optimized", "link_kind": "ib", "nic_bandwidth": "200Gbps", "nics_per_leaf": 8, "spines": 2, "oversubscription": 1}})",
      R"({"kind": "cluster", "hosts": 2, "server": {"kind": "dgx1_v100", "nics": 1}, "fabric": {"kind": "star", "link_kind": "ethernet", "nic_bandwidth": "100Gbps"}})",
      R"({"kind": "star", "hosts": 6, "bandwidth": "10Gbps", "latency": "1us"})",
  };
  std::vector<Topology> wholes;
  for (const std::string& f : fabrics) wholes.push_back(generated(f));
  // Shipped files of explicit nodes and links: NVLink cube-mesh, PCIe box, TCP hosts.
  for (const char* name : {"dgx1-v100", "pcie-8gpu", "tcp-16x25gbe", "ddp-4x8-example"}) {
    wholes.push_back(load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/" + name + ".json"));
  }
  std::mt19937 rng(7);
  int damaged_with_failures = 0;
  for (const Topology& whole : wholes) {
    INFO(whole.name);
    for (NodeIndex anchor : {whole.ranks.front(), whole.ranks.back()}) {
      CHECK(pairs_without_route(whole, anchor).empty());
      CHECK(by_route_search(whole, anchor).empty());
    }
    Diagnostics none;
    check_topology_rules(whole, none);
    CHECK(none.empty());
    // Drop single directed links, then a few at a time: NIC uplinks, PCIe, NVLink, spines.
    for (int trial = 0; trial < 60; ++trial) {
      Topology t = whole;
      const int drop = 1 + trial % 4;
      for (int k = 0; k < drop && !t.links.empty(); ++k) {
        std::uniform_int_distribution<std::size_t> pick(0, t.links.size() - 1);
        t.links.erase(t.links.begin() + static_cast<std::ptrdiff_t>(pick(rng)));
      }
      const NodeIndex anchor = t.ranks[std::uniform_int_distribution<std::size_t>(0, t.ranks.size() - 1)(rng)];
      const auto expected = by_route_search(t, anchor);
      CHECK(pairs_without_route(t, anchor) == expected);
      damaged_with_failures += !expected.empty();
      // The whole check: the pairs without a path, listed in rank order up to 20 (then
      // counted), before any rail-aware route from rank 0 is asked for.
      const auto cut = unreachable_pairs(t);
      Diagnostics d;
      check_topology_rules(t, d);
      if (cut.empty()) {
        CHECK(d.size() == std::min<std::size_t>(by_route_search(t, t.ranks.front()).size(), 21));
      } else {
        REQUIRE(d.size() == std::min<std::size_t>(cut.size(), 20) + (cut.size() > 20 ? 1 : 0));
        for (std::size_t i = 0; i < std::min<std::size_t>(cut.size(), 20); ++i) {
          CHECK_THAT(d[i].what(), Catch::Contains("/nodes/" + std::to_string(cut[i].first) + ":") &&
                                      Catch::Contains("no path to " + std::string(to_string(t.nodes[cut[i].second].kind)) + " \"" +
                                                      t.nodes[cut[i].second].id + "\""));
        }
      }
    }
  }
  CHECK(damaged_with_failures > 20);  // the damage did cut routes often enough to compare
}

}  // namespace collsim
