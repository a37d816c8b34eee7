// Routing over the link graph: NVLink before PCIe inside a host, rail-aware NIC choice,
// ECMP spreading by a stable hash, the cached two-argument route() and the uncached
// append_route().
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "sim/topo/cluster_generator.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/link_graph.hpp"
#include "sim/topo/server_generators.hpp"

namespace collsim {

namespace {
std::vector<NodeKind> kinds_along(const Topology& t, const Route& r) {
  std::vector<NodeKind> out;
  for (LinkId l : r.links) out.push_back(t.nodes[t.links[l].to].kind);
  return out;
}
}  // namespace

TEST_CASE("inside a DGX H100 a route takes the NVSwitch, not the PCIe switch", "[topo][routing]") {
  const Topology t = make_server(ServerSpec{.kind = ServerKind::DgxH100});
  LinkGraph g(t);
  // GPU 0 and GPU 1 share PCIe switch 0, so GPU->PCIe->GPU is as short (2 hops) as
  // GPU->NVSwitch->GPU; NVLink wins: 2 links, both of kind nvswitch.
  const Route& r = g.route(0, 1);
  REQUIRE(r.links.size() == 2);
  CHECK(t.links[r.links[0]].kind == LinkKind::NvSwitch);
  CHECK(t.links[r.links[1]].kind == LinkKind::NvSwitch);
  // Latency: two NVLink hops of 250 ns.
  CHECK(r.latency == Time::from_ns(500));
}

TEST_CASE("on a DGX-1 a pair without NVLink goes over PCIe and the socket link", "[topo][routing]") {
  const Topology t = make_server(ServerSpec{.kind = ServerKind::Dgx1V100});
  LinkGraph g(t);
  // GPU 0 has NVLinks to 1, 2, 3 and 4 only. GPU 0 -> 5: up PCIe switch 0, CPU 0, the
  // socket link to CPU 1, down PCIe switch 2 (GPUs 4, 5): 5 links, never through a GPU.
  const Route& r = g.route(0, 5);
  CHECK(kinds_along(t, r) ==
        std::vector<NodeKind>{NodeKind::PcieSwitch, NodeKind::Cpu, NodeKind::Cpu, NodeKind::PcieSwitch, NodeKind::Gpu});
  // GPU 0 -> 3 is a direct double NVLink: one link of 2 lanes, 50 GB/s.
  const Route& nv = g.route(0, 3);
  REQUIRE(nv.links.size() == 1);
  CHECK(t.links[nv.links[0]].lanes == 2);
  CHECK(t.links[nv.links[0]].bandwidth.gb_per_s() == Approx(50.0));
}

TEST_CASE("rail-aware: a GPU leaves its host through its own NIC", "[topo][routing]") {
  ClusterSpec c;
  c.hosts = 2;
  c.server.kind = ServerKind::DgxA100;  // two GPUs and two NICs per PCIe switch
  c.fabric.kind = FabricKind::RailOptimized;
  c.fabric.nic_bandwidth = Bandwidth::gbps(200);
  c.fabric.nics_per_leaf = 32;
  c.fabric.spines = 2;
  const Topology t = make_cluster(c);
  LinkGraph g(t);
  for (int local = 0; local < 8; ++local) {
    // GPU i of host 0 -> GPU i of host 1: GPU, PCIe switch, NIC i, leaf of rail i, NIC i
    // of host 1, PCIe switch, GPU: 6 links. Through NIC i + 1 (same PCIe switch) and the
    // leaf of rail i + 1 would be just as short; the route must not take it.
    const Route& r = g.route(local, 8 + local);
    REQUIRE(r.links.size() == 6);
    CHECK(t.links[r.links[1]].to == *t.nodes[t.ranks[local]].nic);
    CHECK(t.links[r.links[3]].to == *t.nodes[t.ranks[8 + local]].nic);
    CHECK(t.nodes[t.links[r.links[2]].to].id == "leaf" + std::to_string(local) + ".0");
  }
  // Across rails (GPU 0 -> GPU 1 of the other host): NIC 0, leaf 0.0, a spine, leaf
  // 1.0, NIC 1: 8 links.
  CHECK(g.route(0, 9).links.size() == 8);
}

TEST_CASE("ECMP spreads flows over spines by a stable hash; route(src, dst) is flow 0", "[topo][routing]") {
  ClusterSpec c;
  c.hosts = 8;
  c.server.kind = ServerKind::CpuHost;
  c.fabric.kind = FabricKind::FatTree;
  c.fabric.link_kind = LinkKind::Roce;  // InfiniBand routes by destination (next test)
  c.fabric.nic_bandwidth = Bandwidth::gbps(100);
  c.fabric.nics_per_leaf = 4;
  c.fabric.spines = 4;
  const Topology t = make_cluster(c);
  LinkGraph g(t);
  // Host 0 (leaf 0) -> host 4 (leaf 1): host, NIC, leaf 0, spine s, leaf 1, NIC, host: the
  // 4 spines give 4 equal-cost paths. 64 flows hashed over 4 spines use every spine.
  std::set<NodeIndex> spines;
  for (std::uint32_t f = 0; f < 64; ++f) {
    const Route& r = g.route(0, 4, f);
    REQUIRE(r.links.size() == 6);
    spines.insert(t.links[r.links[2]].to);
  }
  CHECK(spines.size() == 4);
  // Deterministic: a second graph picks the same links for the same flow.
  LinkGraph again(t);
  for (std::uint32_t f = 0; f < 64; ++f) CHECK(again.route(0, 4, f).links == g.route(0, 4, f).links);
  // The two-argument route is flow 0, cached: the same object each time.
  CHECK(&g.route(0, 4) == &g.route(0, 4, 0));
  CHECK(g.route(3, 3).links.empty());
}

namespace {
// DGX H100 hosts on a 1:1 fat tree of 16-port leaves and 4 spines.
Topology dgx_fat_tree(LinkKind kind) {
  ClusterSpec c;
  c.hosts = 8;
  c.server.kind = ServerKind::DgxH100;
  c.fabric.kind = FabricKind::FatTree;
  c.fabric.link_kind = kind;
  c.fabric.nics_per_leaf = 16;
  c.fabric.spines = 4;
  return make_cluster(c);
}
// The most load on one link between two switches under the shift permutation rank r ->
// r + shift (mod N), every route at the NIC's rate, as a fraction of the link's capacity:
// above 1, routes collide.
double worst_fabric_load(const Topology& t, LinkGraph& g, int shift) {
  std::map<LinkId, double> load;
  double worst = 0;
  const int n = t.rank_count();
  const double nic = Bandwidth::gbps(400).bytes_per_s;
  for (int r = 0; r < n; ++r) {
    for (LinkId l : g.route(r, (r + shift) % n).links) {
      if (t.nodes[t.links[l].from].kind == NodeKind::Switch && t.nodes[t.links[l].to].kind == NodeKind::Switch) {
        worst = std::max(worst, (load[l] += nic) / t.links[l].line_rate.bytes_per_s);
      }
    }
  }
  return worst;
}
}  // namespace

TEST_CASE("InfiniBand routes by destination (D-mod-K): shifts cross the spines without collisions", "[topo][routing]") {
  const Topology ib = dgx_fat_tree(LinkKind::Ib);
  LinkGraph g(ib);
  // Destination-based: every flow id between a pair takes flow 0's path.
  for (std::uint32_t f = 1; f < 16; ++f) CHECK(g.route(0, 40, f).links == g.route(0, 40).links);
  // Every shift permutation of the 64 GPUs (each on its own NIC) fits the leaf-spine links
  // (each 4 NICs wide): the property OpenSM's fat-tree routing is built for.
  const std::vector<int> shifts{1, 8, 9, 16, 24, 32, 63};
  for (const int shift : shifts) {
    INFO("shift " << shift);
    CHECK(worst_fabric_load(ib, g, shift) <= 1.0);
  }
  // The same fabric over RoCE hashes each flow: some shift overloads a link.
  const Topology roce = dgx_fat_tree(LinkKind::Roce);
  LinkGraph h(roce);
  double worst = 0;
  for (const int shift : shifts) worst = std::max(worst, worst_fabric_load(roce, h, shift));
  CHECK(worst > 1.0);
}

TEST_CASE("a route across a star's hub looks at a handful of links, not the hub's every link", "[topo][routing]") {
  // The search used to sweep the hub's out-links: every route on an N-host star looked at
  // N links, and checking a topology's routes took N^2 (20,000 hosts: 12.6 s).
  StarSpec spec;
  spec.hosts = 20000;
  const Topology t = make_star(spec);
  LinkGraph g(t);
  for (const auto& [a, b] : {std::pair{0, 19999}, std::pair{1, 2}, std::pair{12345, 7}}) {
    const Route& r = g.route(a, b);
    CHECK(r.links.size() == 2);
    CHECK(g.last_links_scanned() <= 8);
  }
}

TEST_CASE("append_route gives route()'s links without caching them, and copies cached and pinned routes",
          "[topo][routing]") {
  const Topology t = dgx_fat_tree(LinkKind::Roce);  // ECMP by hash: a search's choice shows
  LinkGraph cached(t);
  LinkGraph uncached(t);
  std::vector<LinkId> links;
  for (int a = 0; a < t.rank_count(); a += 5) {
    for (int b = 0; b < t.rank_count(); b += 3) {
      links.assign({LinkId{7}});  // appended after what is there
      uncached.append_route(a, b, links);
      const Route& r = cached.route(a, b);
      REQUIRE(links.size() == r.links.size() + 1);
      CHECK(std::equal(r.links.begin(), r.links.end(), links.begin() + 1));
    }
  }
  CHECK(uncached.cached_routes() == 0);
  // A pinned route is what it gives.
  uncached.pin_route(0, 9, Route{{LinkId{3}, LinkId{4}}, Time{}});
  links.clear();
  uncached.append_route(0, 9, links);
  CHECK(links == std::vector<LinkId>{3, 4});
}

TEST_CASE("append_route names the pair that has no path", "[topo][routing]") {
  Topology t;
  t.source = "two.json";
  const NodeIndex g0 = t.add_node("g0", NodeKind::Gpu);
  const NodeIndex g1 = t.add_node("g1", NodeKind::Gpu);
  t.ranks = {g0, g1};
  LinkGraph g(t);
  std::vector<LinkId> links;
  REQUIRE_THROWS_WITH(g.append_route(0, 1, links), Catch::Contains("two.json") && Catch::Contains("rank 0 (g0) and rank 1 (g1)"));
  CHECK(links.empty());
}

}  // namespace collsim
