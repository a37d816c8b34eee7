// NCCL's PAT (all-gather / reduce-scatter, one GPU per node), derived by hand: the
// schedule's dimensions and bytes, NCCL's tuning figures (baseLat + 2.8 us x nRanks +
// log2(nNodes) x interLat / 3.5; busBw x 0.75, no algBw conversion), where auto picks it
// and where it cannot run.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/algo/pat.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

// `hosts` hosts with one H100 each (PCIe Gen5 switch, one 400 Gb/s InfiniBand NIC beside
// it), all NICs on one switch: the ranks are the GPUs, one per host.
Topology one_gpu_hosts(int hosts) {
  nlohmann::json nodes = nlohmann::json::array({{{"id", "sw"}, {"kind", "switch"}}});
  nlohmann::json links = nlohmann::json::array();
  for (int h = 0; h < hosts; ++h) {
    const std::string p = fmt::format("h{}/", h);
    nodes.push_back({{"id", p + "host"}, {"kind", "host"}});
    nodes.push_back({{"id", p + "cpu0"}, {"kind", "cpu"}, {"host", p + "host"}});
    nodes.push_back({{"id", p + "pcie0"}, {"kind", "pcie_switch"}, {"host", p + "host"}});
    nodes.push_back({{"id", p + "gpu0"}, {"kind", "gpu"}, {"model", "H100"}, {"host", p + "host"}});
    nodes.push_back({{"id", p + "nic0"}, {"kind", "nic"}, {"host", p + "host"}});
    for (const char* a : {"cpu0", "gpu0", "nic0"}) {
      links.push_back({{"endpoints", {p + a, p + "pcie0"}},
                       {"kind", "pcie"},
                       {"bandwidth", "3.938462GB/s"},
                       {"lanes", 16},
                       {"latency", "250ns"}});
    }
    links.push_back(
        {{"endpoints", {p + "nic0", "sw"}}, {"kind", "ib"}, {"bandwidth", "400Gbps"}, {"latency", "500ns"}});
  }
  return load_topology_json({{"name", fmt::format("{}x-h100-one-gpu", hosts)}, {"nodes", nodes}, {"links", links}},
                            "one-gpu-hosts.json");
}

CollectiveRequest auto_request(CollectiveOp op) {
  CollectiveRequest req;
  req.algorithms = parse_algorithm_list("auto", op);
  req.protocols = parse_protocol_list("auto");
  req.protocols_auto = true;
  return req;
}

TEST_CASE("PAT: log2 n dimensions, every rank sends n - 1 blocks", "[coll][pat]") {
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter}) {
    const Collective c{op, 12, 0, Bytes{12 * 1024}};
    const Schedule s = pat_schedule(c);
    CHECK(pat_transfers(12) == 132);
    std::size_t moves = 0;
    for (const Transfer& t : s.transfers()) {
      if (t.kind == TransferKind::Join) continue;
      ++moves;
      // Peers are 2^d apart (mod 12): 1, 2, 4 or 8 forward (reduce-scatter) or back.
      const int dist = ((op == CollectiveOp::AllGather ? t.src - t.dst : t.dst - t.src) % 12 + 12) % 12;
      CHECK((dist == 1 || dist == 2 || dist == 4 || dist == 8));
    }
    CHECK(moves == 132);
    for (Bytes b : s.bytes_sent_per_rank()) CHECK(b.count == 11 * 1024);
  }
}

TEST_CASE("PAT prices as NCCL's tuning model does", "[coll][pat]") {
  const Topology topo = one_gpu_hosts(16);
  LinkGraph links(topo);
  const TopologyFacts facts = topology_facts(topo);
  const auto g = search_nccl_ring(links, facts.host_of_rank);
  REQUIRE(g.has_value());
  const Collective c{CollectiveOp::AllGather, 16, 0, Bytes{1 << 30}};
  const CollectiveCost cost = collective_cost(facts, c, "pat", Protocol::Simple, nccl_default_model(), {}, &*g);
  REQUIRE_FALSE(cost.unusable.has_value());
  // baseLat 8 us + 2.8 us x 16 ranks = 52.8 us; a network dimension 14 us / 3.5 = 4 us.
  CHECK(cost.base_latency.us() == Approx(52.8));
  CHECK(cost.step.step_latency[static_cast<std::size_t>(LinkClass::Net)].us() == Approx(4.0));
  // busBw = channels x bwInter x 0.75; the flows may use every channel's speed.
  CHECK(cost.nccl_busbw_gbps == Approx(g->channels * g->speed_gbps * 0.75));
  CHECK(cost.step.wire_inflation == Approx(1 / 0.75));
  // NCCL's estimate: 52.8 + log2(16) x 4 us, then the whole 1 GiB at busBw (no n/(n-1)).
  const auto t = nccl_model_time(facts, c, "pat", Protocol::Simple, cost, &*g);
  REQUIRE(t.has_value());
  CHECK(t->us() == Approx(52.8 + 16 + 1073741824.0 / (1000 * cost.nccl_busbw_gbps)));
}

TEST_CASE("auto: PAT for small all-gathers on one GPU per host, the ring for large", "[coll][pat]") {
  const Topology topo = one_gpu_hosts(16);
  LinkGraph links(topo);
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter}) {
    const auto req = auto_request(op);
    REQUIRE(std::find(req.algorithms.begin(), req.algorithms.end(), "pat") != req.algorithms.end());
    // 1 KiB: the ring's 15 network steps (Tree row, LL: 5 us each, + baseLat 6.6) cost 81.6 us
    // in NCCL's model, PAT's 52.8 + 16 us less.
    const auto small = predict_collective(links, Collective{op, 16, 0, Bytes{1024}}, req);
    CHECK(small.algorithm == "pat");
    CHECK(small.protocol == Protocol::Simple);
    // 1 GiB: the ring moves 15/16 of it at busBw, PAT all of it at 0.75 busBw.
    const auto large = predict_collective(links, Collective{op, 16, 0, Bytes{1 << 30}}, req);
    CHECK(large.algorithm == "ring");
  }
}

TEST_CASE("PAT does not run with several GPUs per host, nor with LL or LL128", "[coll][pat]") {
  const Topology node = load_topology_file(test::shipped_topology("dgx-h100.json"));
  const TopologyFacts facts = topology_facts(node);
  const Collective c{CollectiveOp::AllGather, 8, 0, Bytes{1 << 20}};
  const auto several = collective_cost(facts, c, "pat", Protocol::Simple, nccl_default_model(), {}, nullptr);
  REQUIRE(several.unusable.has_value());
  CHECK_THAT(*several.unusable, Catch::Contains("one rank per host"));
  LinkGraph links(node);
  const auto chosen = predict_collective(links, c, auto_request(CollectiveOp::AllGather));
  CHECK(chosen.algorithm != "pat");

  const Topology hosts = one_gpu_hosts(4);
  const TopologyFacts one = topology_facts(hosts);
  const Collective c4{CollectiveOp::AllGather, 4, 0, Bytes{1 << 20}};
  for (Protocol p : {Protocol::LL, Protocol::LL128}) {
    const auto cost = collective_cost(one, c4, "pat", p, nccl_default_model(), {}, nullptr);
    REQUIRE(cost.unusable.has_value());
    CHECK_THAT(*cost.unusable, Catch::Contains("only with the simple protocol"));
  }
  CHECK_THROWS_WITH(pat_schedule(Collective{CollectiveOp::AllReduce, 4, 0, Bytes{64}}),
                    Catch::Contains("allgather and reducescatter only"));
}

}  // namespace
}  // namespace collsim
