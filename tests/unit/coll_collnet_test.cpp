// NCCL's CollNet (Direct and Chain) with SHARP over an InfiniBand fabric: the schedules'
// data semantics, the layout's heads and spans on a fat tree of DGX H100 hosts (every link of
// the aggregation tree carries one stream each way), the time by hand where NVLink bounds
// it, and where it is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/algo/collnet.hpp"
#include "sim/algo/registry.hpp"
#include "sim/algo/symbolic_executor.hpp"
#include "sim/coll/collnet_layout.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/coll/group_collective_cost.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"

namespace collsim {
namespace {

Topology dgx_h100_cluster(int hosts, std::string_view fabric) {
  return load_topology_json(
      parse_json_text(fmt::format(R"({{"generator": {{"kind": "cluster", "hosts": {}, "server": {{"kind": "dgx_h100"}},
                      "fabric": {}}}}})",
                                  hosts, fabric),
                      "t.json"),
      "t.json");
}

// Two leaves of 16 NIC ports (two hosts a leaf), two spines.
constexpr std::string_view kFatTree =
    R"({"kind": "fat_tree", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 16, "spines": 2, "oversubscription": 1})";

TEST_CASE("collnet schedules reduce every block onto the heads and copy the sum back", "[collnet][algo]") {
  for (const auto* algo : {&kCollNetDirectAlgorithm, &kCollNetChainAlgorithm}) {
    for (const auto& [hosts, ppn] : std::vector<std::pair<int, int>>{{2, 1}, {2, 4}, {3, 8}, {5, 3}}) {
      AlgorithmOptions opt;
      opt.host_of_rank = block_hosts(hosts * ppn, hosts);
      opt.channels = 3;
      opt.slice_bytes = Bytes{8};
      const Collective c{CollectiveOp::AllReduce, hosts * ppn, 0, Bytes{std::int64_t{hosts} * ppn * 40 + 7}};
      const Schedule s = build_schedule(algo->name, c, opt);
      const Verification v = verify_schedule(s);
      INFO(fmt::format("{} {} hosts x {}: {}", algo->name, hosts, ppn, v.error));
      CHECK(v.ok);
    }
  }
}

TEST_CASE("collnet's layout on a fat tree: heads by NIC, each aggregation-tree link one stream each way", "[collnet]") {
  const Topology topo = dgx_h100_cluster(4, kFatTree);
  LinkGraph graph(topo);
  const TopologyFacts facts = topology_facts(topo);
  const auto g = search_nccl_ring(graph, facts.host_of_rank);
  REQUIRE(g);
  std::string why;
  const auto plan = collnet_plan(graph, *g, false, 12, &why);
  INFO(why);
  REQUIRE(plan);
  const CollNetLayout& layout = *plan->layout;
  // DGX H100: every GPU has a NIC of its own on its PCIe switch: 8 heads, GPU j for NIC j.
  REQUIRE(layout.streams.size() == 8);
  for (int j = 0; j < 8; ++j) {
    CHECK(layout.streams[static_cast<std::size_t>(j)].head == j);
    CHECK(layout.streams[static_cast<std::size_t>(j)].root == j % 4);
  }
  // Bytes each stream puts on each directed link, from the flows the schedule plays.
  AlgorithmOptions opt;
  opt.host_of_rank = facts.host_of_rank;
  opt.collnet = plan->layout;
  const Bytes size{8 << 20};
  const Collective c{CollectiveOp::AllReduce, 32, 0, size};
  const Schedule s = build_schedule(std::string(kCollNetDirectAlgorithm.name), c, opt);
  const Verification v = verify_schedule(s);
  INFO(v.error);
  REQUIRE(v.ok);
  for (const CollNetPin& p : plan->pins) graph.pin_route(p.src, p.dst, p.route);
  std::map<std::pair<int, LinkId>, std::int64_t> load;  // (stream, link) -> bytes
  StepCost cost;
  for (const Transfer& t : s.transfers()) {
    if (t.kind == TransferKind::Join) continue;
    for (LinkId l : plan_flow(t, graph, cost).links) load[{t.channel, l}] += t.bytes.count;
  }
  graph.clear_pinned_routes();
  const std::int64_t block = size.count / 8;
  int fabric_links = 0, nic_links = 0;
  for (const auto& [key, bytes] : load) {
    const DirectedLink& link = topo.links[key.second];
    const bool network = link.kind == LinkKind::Ib;
    if (!network) continue;
    INFO(fmt::format("stream {} on {} -> {}", key.first, topo.nodes[link.from].id, topo.nodes[link.to].id));
    CHECK(bytes == block);  // one stream of the block, never two
    const bool switch_to_switch =
        topo.nodes[link.from].kind == NodeKind::Switch && topo.nodes[link.to].kind == NodeKind::Switch;
    (switch_to_switch ? fabric_links : nic_links) += 1;
  }
  // Every host's NIC j carries stream j's block up and down: 4 hosts x 8 NICs x 2 ways.
  CHECK(nic_links == 4 * 8 * 2);
  // Hosts 0-1 and 2-3 share a leaf: each stream crosses leaf -> spine -> leaf once each way.
  CHECK(fabric_links == 8 * 2 * 2);
}

TEST_CASE("collnet direct's time by hand where NVLink bounds it", "[collnet]") {
  // Each GPU sends 7/8 of the buffer to the other heads and each head 7/8 of its block x 7
  // back: 1.75 S through its NVSwitch port, against S / 8 through each NIC: NVLink bounds it.
  const Topology topo = dgx_h100_cluster(2, R"({"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"})");
  LinkGraph graph(topo);
  double nvlink = 0;
  for (const DirectedLink& l : topo.links) {
    if (l.from == topo.ranks[0] && (l.kind == LinkKind::NvLink || l.kind == LinkKind::NvSwitch)) nvlink += l.bandwidth.bytes_per_s;
  }
  REQUIRE(nvlink > 0);
  CollectiveRequest r;
  r.algorithms = {std::string(kCollNetDirectAlgorithm.name)};
  r.protocols = {Protocol::Simple};
  const Bytes size{std::int64_t{1} << 30};
  const CollectivePrediction p = predict_collective(graph, Collective{CollectiveOp::AllReduce, 16, 0, size}, r);
  const double by_hand = 1.75 * static_cast<double>(size.count) / nvlink;
  INFO(fmt::format("predicted {} s, by hand {} s", p.time.seconds(), by_hand));
  CHECK(p.time.seconds() == Approx(by_hand).epsilon(0.03));
  CHECK(p.time.seconds() > by_hand);
  // Small: NCCL's latency, 2 x (3.7 + 7 x 0.4) + 31 us, and the bytes.
  const CollectivePrediction tiny = predict_collective(graph, Collective{CollectiveOp::AllReduce, 16, 0, Bytes{1024}}, r);
  CHECK(tiny.time.seconds() * 1e6 == Approx(44.0).margin(2.0));
}

TEST_CASE("collnet is refused where NCCL cannot run it, saying why", "[collnet]") {
  auto refusal = [&](const Topology& topo, std::string_view algo, Protocol p) {
    LinkGraph graph(topo);
    CollectiveRequest r;
    r.algorithms = {std::string(algo)};
    r.protocols = {p};
    try {
      (void)predict_collective(graph, Collective{CollectiveOp::AllReduce, topo.rank_count(), 0, Bytes{1 << 20}}, r);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("ran");
  };
  const Topology roce = dgx_h100_cluster(2, R"({"kind": "star", "link_kind": "roce", "nic_bandwidth": "400Gbps"})");
  CHECK_THAT(refusal(roce, kCollNetDirectAlgorithm.name, Protocol::Simple), Catch::Contains("SHARP runs on InfiniBand"));
  CHECK_THAT(refusal(roce, kCollNetChainAlgorithm.name, Protocol::Simple), Catch::Contains("is roce"));
  const Topology one = load_topology_json(
      parse_json_text(R"({"generator": {"kind": "dgx_h100"}})", "t.json"), "t.json");
  CHECK_THAT(refusal(one, kCollNetDirectAlgorithm.name, Protocol::Simple), Catch::Contains("several hosts"));
  const Topology ib = dgx_h100_cluster(2, R"({"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"})");
  CHECK_THAT(refusal(ib, kCollNetDirectAlgorithm.name, Protocol::LL128), Catch::Contains("simple protocol"));
  CHECK(refusal(ib, kCollNetChainAlgorithm.name, Protocol::Simple) == "ran");
  // NCCL_ALGO's names.
  CHECK(nccl_algo_list("CollNet", "--nccl-algo") == "collnet_direct,collnet_chain,sharp");
  CHECK(nccl_algo_list("CollNetDirect", "--nccl-algo") == "collnet_direct");
  CHECK(nccl_algo_list("collnetchain", "--nccl-algo") == "collnet_chain");
}

TEST_CASE("collnet prices one process group, and refuses concurrent groups sharing the fabric", "[collnet]") {
  const Topology topo = dgx_h100_cluster(4, kFatTree);
  LinkGraph graph(topo);
  GroupCollectiveCost cost(graph, std::string(kCollNetDirectAlgorithm.name), 8, Protocol::Simple);
  std::vector<int> a, b;
  for (int r = 0; r < 16; ++r) {
    a.push_back(r);
    b.push_back(16 + r);
  }
  CHECK(cost.time_groups(CollectiveOp::AllReduce, Bytes{1 << 20}, {a}) > Time{});
  try {
    (void)cost.time_groups(CollectiveOp::AllReduce, Bytes{1 << 20}, {a, b});
    FAIL("two concurrent CollNet groups were played");
  } catch (const std::exception& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("2 concurrent groups sharing the fabric's SHARP switches"));
  }
}

}  // namespace
}  // namespace collsim
