// NCCL's channel graphs derived by hand for three systems: the DGX-1 (rings on NVLink
// only), 4 x DGX H100 on a rail fabric (one channel per NIC, all 8 NICs), and a
// PCIe-only box (rings cross PCIe switches and the socket link).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <stdexcept>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

#include <nlohmann/json.hpp>

namespace collsim {
namespace {


NcclGraph ring_graph(const Topology& topo, LinkGraph& graph) {
  const auto g = search_nccl_ring(graph, topology_facts(topo).host_of_rank);
  REQUIRE(g.has_value());
  return *g;
}

TEST_CASE("DGX-1: every ring channel hops over NVLink only", "[coll][nccl][graph]") {
  const Topology topo = load_topology_file(test::shipped_topology("dgx1-v100.json"));
  LinkGraph graph(topo);
  const NcclGraph g = ring_graph(topo, graph);
  // Volta: NCCL counts 20 GB/s per NVLink, so a GPU has 6 x 20 = 120 GB/s out. The intra
  // speeds are 40, 30, 20, ...: at 40 only the doubled pairs carry a channel, and the
  // cycle 0-3-2-1-5-6-7-4 uses doubled pairs only, once each way: 2 channels, 80 GB/s.
  // At 20 every lane can carry one: 120 / 20 = 6 channels, more than 80 GB/s, so the
  // search settles at 20 GB/s; 20 < 25, so no duplication. Six rings that use every
  // NVLink lane once each way exist (a GPU's 6 lanes out and 6 in, one per ring); taking
  // the first ring found each time strands a lane after 5, so the search must backtrack
  // into earlier rings, as NCCL's does.
  CHECK(g.type_intra == PathType::Nvl);
  CHECK(g.searched_speed_gbps == Approx(20.0));
  CHECK_FALSE(g.duplicated);
  CHECK(g.channels == 6);
  // Every NVLink lane carries exactly one ring each way: each directed GPU pair is used
  // by as many rings as it has lanes.
  std::map<std::pair<int, int>, int> uses;
  for (int c = 0; c < g.channels; ++c) {
    const std::vector<int> order = g.rank_order(c);
    for (std::size_t i = 0; i < order.size(); ++i) ++uses[{order[i], order[(i + 1) % order.size()]}];
  }
  for (const auto& [pair, n] : uses) {
    const Route& hop = graph.route(pair.first, pair.second);
    INFO("GPU " << pair.first << " -> GPU " << pair.second);
    REQUIRE(hop.links.size() == 1);
    CHECK(topo.links[hop.links.front()].kind == LinkKind::NvLink);
    const long lanes = std::lround(topo.links[hop.links.front()].bandwidth.gb_per_s() / 25.0);  // 25 GB/s a lane
    CHECK(n == lanes);
  }
  for (int c = 0; c < g.channels; ++c) {
    const std::vector<int> order = g.rank_order(c);
    REQUIRE(order.size() == 8);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Route& hop = graph.route(order[i], order[(i + 1) % order.size()]);
      CHECK(hop.links.size() == 1);
      CHECK(topo.links[hop.links.front()].kind == LinkKind::NvLink);
    }
  }
}

TEST_CASE("4 x DGX H100, 8 x 400G rails: one channel per NIC, in and out by the same NIC", "[coll][nccl][graph]") {
  const Topology topo = load_topology_file(test::shipped_topology("4x-dgx-h100-rail-8x400g-ib.json"));
  LinkGraph graph(topo);
  const NcclGraph g = ring_graph(topo, graph);
  // NCCL's view: NIC 400 Gb/s = 50 GB/s, GPU-NIC PCIe Gen5 x16 = 48, NVLink 18 x 20.6 =
  // 370.8 per GPU. Inter speeds start at 48, the largest <= 50: a NIC carries one channel
  // (2 x 48 > 50), so 8 channels, one per NIC. A channel crosses 7 NVLink hops inside a
  // host; the GPU it leaves by sends over PCIe, so each GPU's NVLink carries 7 of the 8
  // channels: 7 x 48 = 336 <= 370.8. 8 x 48 = 384 GB/s, the most the NICs allow. Hopper
  // under 50 GB/s with more than 4 channels is not duplicated.
  CHECK(g.hosts == 4);
  CHECK(g.searched_speed_gbps == Approx(48.0));
  CHECK(g.channels == 8);
  CHECK_FALSE(g.duplicated);
  std::set<int> nics;
  for (int c = 0; c < g.channels; ++c) {
    const NcclChannel& ch = g.per_channel[static_cast<std::size_t>(c)];
    nics.insert(ch.nic);
    // Channel c starts at NIC c's own GPU (GPU c) and leaves from its PCIe-switch peer
    // (GPUs 2k and 2k+1 share a switch with NICs 2k and 2k+1): PIX, no PXN needed.
    CHECK(ch.nic == c);
    CHECK(ch.order.front() == c);
    CHECK(ch.order.back() == (c ^ 1));
    CHECK(ch.exit_path == PathType::Pix);
    // Its hop from host 0 to host 1 leaves by host 0's NIC c and arrives by host 1's NIC c.
    const auto hop = channel_hop_route(graph, g, c, 0, 1);
    REQUIRE(hop.has_value());
    std::set<NodeIndex> nodes;
    for (LinkId l : hop->links) nodes.insert(topo.links[l].to);
    CHECK(nodes.count(g.host[0].nics[static_cast<std::size_t>(c)]) == 1);
    CHECK(nodes.count(g.host[1].nics[static_cast<std::size_t>(c)]) == 1);
  }
  CHECK(nics.size() == 8);
  // The tree graph's second pass raises bwIntra only to listed speeds above 48 GB/s:
  // Hopper's inter list tops out at 48, so trees stay at 48.
  CHECK(g.tree_speed_gbps == Approx(48.0));
}

TEST_CASE("a process group's search: one GPU per host leaves by that GPU's own NIC", "[coll][nccl][graph]") {
  // The data-parallel groups of a TP = 8 layout on 4 x DGX H100: local GPU k of every host.
  // NCCL picks among a GPU's nearest NICs by its device index (ncclTopoGetLocalNet), so
  // group k leaves and enters every host by NIC k, and the 8 groups use all 8 rails.
  const Topology topo = load_topology_file(test::shipped_topology("4x-dgx-h100-rail-8x400g-ib.json"));
  LinkGraph graph(topo);
  const std::vector<int> host_of_rank = topology_facts(topo).host_of_rank;
  for (int k = 0; k < 8; ++k) {
    std::vector<NodeIndex> nodes;
    std::vector<int> hosts;
    for (int h = 0; h < 4; ++h) {
      nodes.push_back(topo.ranks[static_cast<std::size_t>(8 * h + k)]);
      hosts.push_back(host_of_rank[static_cast<std::size_t>(8 * h + k)]);
    }
    const auto g = search_nccl_ring(graph, nodes, hosts);
    REQUIRE(g.has_value());
    INFO("local GPU " << k);
    CHECK(g->hosts == 4);
    CHECK(g->host[1].gpus.front() == topo.ranks[static_cast<std::size_t>(8 + k)]);
    for (const NcclChannel& ch : g->per_channel) {
      CHECK(ch.order == std::vector<int>{0});
      CHECK(ch.exit_nic == ch.nic);
    }
    CHECK(g->per_channel.front().nic == k);
    CHECK(g->host[0].nics[static_cast<std::size_t>(k)] == *topo.nodes[nodes.front()].nic);
  }
  // A group's ranks and host labels must pair up.
  CHECK_THROWS_AS(search_nccl_ring(graph, std::vector<NodeIndex>{topo.ranks[0]}, std::vector<int>{}), std::invalid_argument);
}

TEST_CASE("2 x DGX H100, 8 x 200G: trees run their chains at a raised bwIntra", "[coll][nccl][graph]") {
  const nlohmann::json doc = {
      {"name", "2x-dgx-h100-8x200g"},
      {"generator",
       {{"kind", "cluster"},
        {"hosts", 2},
        {"server", {{"kind", "dgx_h100"}, {"nics", 8}}},
        {"fabric", {{"kind", "star"}, {"link_kind", "roce"}, {"nic_bandwidth", "200Gbps"}}}}}};
  const Topology topo = load_topology_json(doc, "inline");
  LinkGraph graph(topo);
  const NcclGraph g = ring_graph(topo, graph);
  // NIC 200 Gb/s = 25 GB/s: the largest inter speed <= 25 is 24, one channel per NIC, 8
  // channels; 24 < 25 so no duplication. Pass 2 for trees (search.cc) raises bwIntra
  // through the inter list 30, 40, 42, 45, 48 while it is below 2 x 24 = 48 and the
  // chains fit. A chain crosses 7 NVLink hops and each GPU ends one of the 8 chains (it
  // leaves by PCIe to its NIC there), so a GPU's NVLink carries 7 chains each way:
  // 7 x 48 = 336 <= 370.8 fits, and 48 is not below 2 x 24, so the pass stops at 48.
  // Trees on two hosts are priced at 48 GB/s a channel (tuning.cc: bwIntra when
  // nNodes <= 2); their NIC legs stay at the links' own 25 GB/s.
  CHECK(g.searched_speed_gbps == Approx(24.0));
  CHECK(g.channels == 8);
  CHECK_FALSE(g.duplicated);
  CHECK(g.speed_gbps == Approx(24.0));
  CHECK(g.tree_speed_gbps == Approx(48.0));
}

TEST_CASE("PCIe box: rings cross switches and sockets at the GPU link's speed", "[coll][nccl][graph]") {
  const Topology topo = load_topology_file(test::shipped_topology("pcie-8gpu.json"));
  LinkGraph graph(topo);
  const NcclGraph g = ring_graph(topo, graph);
  // No NVLink: a ring of 8 GPUs on two sockets must cross the socket link, so the path
  // type relaxes to SYS. NCCL prices the link between two Ice Lake sockets at its Intel
  // SKL figure, 10 GB/s each way (ncclTopoGetInterCpuBw), whatever the 3 UPI links carry:
  // the ring crosses it once each way, so 10 GB/s gives one channel; two need 5 (5 x 2 =
  // 10, no better). 10 < 25: no duplication.
  CHECK(g.type_intra == PathType::Sys);
  CHECK(g.searched_speed_gbps == Approx(10.0));
  CHECK(g.channels == 1);
  CHECK_FALSE(g.duplicated);
  CHECK(g.host_cpu == HostCpu::IntelSkylake);
}

TEST_CASE("no NCCL graph for CPU ranks", "[coll][nccl][graph]") {
  const Topology topo = load_topology_file(test::shipped_topology("tcp-16x25gbe.json"));
  LinkGraph graph(topo);
  CHECK_FALSE(search_nccl_ring(graph, topology_facts(topo).host_of_rank).has_value());
}

}  // namespace
}  // namespace collsim
