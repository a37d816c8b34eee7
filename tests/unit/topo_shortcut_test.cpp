// ShortestPaths' shortcut for paths of one or two hops picks the links its full search
// would: compared query by query, with the shortcut on and off, on shipped topologies and
// generated fabrics, under the transit rules LinkGraph uses and both ways of choosing
// among equal-cost links (hash, destination).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/topo/cluster_generator.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shortest_paths.hpp"

namespace collsim {

namespace {

struct Counts {
  std::size_t queries = 0, short_paths = 0;
};

// Every query between a spread of nodes (at most ~60 x 60) under three transit rules.
Counts compare_searches(const Topology& t) {
  const LinkGraphType g = make_link_graph(t);
  ShortestPaths with(t), without(t);
  without.set_shortcut(false);
  auto any_switch = [&](NodeIndex v) { return t.nodes[v].kind != NodeKind::Gpu && t.nodes[v].kind != NodeKind::Host; };
  auto nvswitch = [&](NodeIndex v) { return t.nodes[v].kind == NodeKind::NvSwitch; };
  auto none = [](NodeIndex) { return false; };
  const std::vector<ShortestPaths::TransitRule> rules{any_switch, nvswitch, none};
  const std::size_t n = t.nodes.size();
  const std::size_t stride = std::max<std::size_t>(1, n / 60);
  Counts c;
  for (NodeIndex a = 0; a < n; a += static_cast<NodeIndex>(stride)) {
    for (NodeIndex b = 0; b < n; b += static_cast<NodeIndex>(stride)) {
      for (std::size_t rule = 0; rule < rules.size(); ++rule) {
        for (const bool by_destination : {false, true}) {
          ShortestPaths::Choice choice{stable_hash(a, b, rule), std::nullopt};
          if (by_destination) choice.destination = b;
          std::vector<LinkId> fast{LinkId{99}}, full{LinkId{99}};  // appended after what is there
          const bool found_fast = with.find(g, a, b, rules[rule], choice, fast);
          const bool found_full = without.find(g, a, b, rules[rule], choice, full);
          INFO(t.name << ": " << t.nodes[a].id << " -> " << t.nodes[b].id << ", rule " << rule << ", by destination "
                      << by_destination);
          REQUIRE(found_fast == found_full);
          if (found_full) REQUIRE(fast == full);
          ++c.queries;
          if (found_full && full.size() >= 2 && full.size() <= 3) ++c.short_paths;
        }
      }
    }
  }
  return c;
}

}  // namespace

TEST_CASE("the one- and two-hop shortcut picks the search's links on shipped topologies", "[topo][routing]") {
  for (const char* name : {"dgx-h100", "dgx1-v100", "pcie-8gpu", "4x-v100-1x100gbe", "4x-dgx-a100-8x200g-ib",
                           "h100-fat-tree-1024", "star-16x100g", "tcp-16x25gbe"}) {
    const Topology t = load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/" + name + ".json");
    const Counts c = compare_searches(t);
    INFO(name);
    CHECK(c.queries > 0);
    CHECK(c.short_paths > 0);  // the shortcut was exercised
  }
}

TEST_CASE("the shortcut picks the search's links on an ECMP fat tree (equal-cost choices by hash)", "[topo][routing]") {
  ClusterSpec spec;
  spec.hosts = 8;
  spec.server.kind = ServerKind::DgxH100;
  spec.fabric.kind = FabricKind::FatTree;
  spec.fabric.link_kind = LinkKind::Roce;
  spec.fabric.nics_per_leaf = 16;
  spec.fabric.spines = 4;
  const Counts c = compare_searches(make_cluster(spec));
  CHECK(c.short_paths > 0);
}

}  // namespace collsim
