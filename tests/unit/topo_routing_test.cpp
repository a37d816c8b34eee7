// Routing over the link graph: NVLink before PCIe inside a host, rail-aware NIC choice,
// ECMP spreading by a stable hash, and the cached two-argument route().
#include <catch2/catch.hpp>

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
  const Topology t = make_server(ServerSpec{ServerKind::DgxH100});
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
  const Topology t = make_server(ServerSpec{ServerKind::Dgx1V100});
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

}  // namespace collsim
