// The cost model: NCCL's per-size channel reduction, the one-GPU-per-node latency rule,
// tree efficiencies, and calibration files (one REQUIRE_THROWS_AS per validation rule).
#include <catch2/catch.hpp>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

TEST_CASE("channels shrink for small sizes as in NCCL's enqueue", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  // Simple: 512 threads x 64 B = 32 KiB per channel; 14 channels need >= 14 x 32 KiB.
  REQUIRE(channels_for_size(14, Bytes{14 * 32768}, Protocol::Simple, NcclRow::Ring, 8, m) == 14);
  REQUIRE(channels_for_size(14, Bytes{14 * 32768 - 1}, Protocol::Simple, NcclRow::Ring, 8, m) == 13);
  REQUIRE(channels_for_size(14, Bytes{8}, Protocol::Simple, NcclRow::Ring, 8, m) == 1);
  // Ring LL: 512 threads x 8 B x nRanks.
  REQUIRE(channels_for_size(14, Bytes{4 * 512 * 8 * 8}, Protocol::LL, NcclRow::Ring, 8, m) == 4);
  REQUIRE(channels_for_size(14, Bytes{1 << 30}, Protocol::Ideal, NcclRow::Ring, 8, m) == 14);
}

TEST_CASE("one rank per host prices network steps with the Tree row", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts facts = topology_facts(make_star(StarSpec{16}));
  REQUIRE(facts.one_rank_per_host);
  REQUIRE(facts.hosts == 16);
  const Collective c{CollectiveOp::AllReduce, 16, 0, Bytes{1024}};
  const auto net = static_cast<std::size_t>(LinkClass::Net);
  // hwLat(NET, Ring, LL) is 2.7 us, but NCCL uses hwLat(NET, Tree, LL) = 5.0 us when ppn = 1.
  const CollectiveCost ring = collective_cost(facts, c, "ring", Protocol::LL, m);
  REQUIRE(ring.step.step_latency[net] == Time::from_us(5));
  REQUIRE(ring.base_latency == Time::from_ns(6600));
  // 8 ranks per host: the Ring row's own 2.7 us.
  const TopologyFacts grouped = topology_facts(make_star(StarSpec{16}), 2);
  REQUIRE(grouped.max_ranks_per_host == 8);
  REQUIRE(collective_cost(grouped, c, "ring", Protocol::LL, m).step.step_latency[net] == Time::from_ns(2700));
}

TEST_CASE("tree efficiency: 0.92, then 1/3.8 for LL", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts facts = topology_facts(make_star(StarSpec{16}));
  const Collective c{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 20}};
  REQUIRE(collective_cost(facts, c, "tree", Protocol::Simple, m).step.wire_inflation == Approx(1 / 0.92));
  REQUIRE(collective_cost(facts, c, "tree", Protocol::LL, m).step.wire_inflation == Approx(3.8 / 0.92));
  REQUIRE(collective_cost(facts, c, "ring", Protocol::LL, m).step.wire_inflation == Approx(2.0));
  REQUIRE(collective_cost(facts, c, "ring", Protocol::Ideal, m).step.wire_inflation == 1.0);
  REQUIRE_FALSE(collective_cost(facts, c, "ring", Protocol::Ideal, m).step.protocol_latency);
}

TEST_CASE("tree LL128 chunks shrink until a deep chain's pipeline fills (enqueue.cc)", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts facts = topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) +
                                                                "/topologies/4x-dgx-h100-rail-8x400g-ib.json"));
  REQUIRE(facts.hosts == 4);
  const CostOverrides eight{8, Bytes{0}};
  auto slice = [&](std::int64_t bytes) {
    const Collective c{CollectiveOp::AllReduce, 32, 0, Bytes{bytes}};
    return collective_cost(facts, c, "tree", Protocol::LL128, m, eight).options.slice_bytes.count;
  };
  // 4 hosts of 8: nsteps = 1 + log2(4) + 0.1 x 8 = 3.8; halve the 576,000 B chunk while a
  // channel holds fewer than 3.8 x 64 / 8 = 30.4 chunks (down to 128 KiB), then while
  // fewer than 3.8 x 16 / 8 = 7.6 (down to 32 KiB).
  // 32 MiB: 4 MiB a channel holds 7, 14, 29, then 58 chunks of 576,000 / 8 = 72,000 B.
  CHECK(slice(32 << 20) == 72000);
  // 1 MiB: 128 KiB a channel; the first loop stops at 72,000 B (not above 128 KiB), the
  // second halves twice more: 1 and 3 chunks, then 18,000 B (not above 32 KiB).
  CHECK(slice(1 << 20) == 18000);
  // 1 GiB: 233 chunks a channel already; the chunk stays whole.
  CHECK(slice(std::int64_t{1} << 30) == 576000);
  // Simple is not touched by this rule, LL128 rings neither.
  const Collective big{CollectiveOp::AllReduce, 32, 0, Bytes{32 << 20}};
  CHECK(collective_cost(facts, big, "ring", Protocol::LL128, m, eight).options.slice_bytes.count == 576000);
}

TEST_CASE("NVLSTree chunks: 128 KiB on 2 or 3 nodes, 64 KiB from 4 nodes (enqueue.cc)", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts four = topology_facts(load_topology_file(test::shipped_topology("4x-dgx-h100-rail-8x400g-ib.json")));
  const TopologyFacts two = topology_facts(
      load_topology_file(test::dev_nccl_topology("h100x8_2nodes_hgx_xe9680_8x400g_ib_allreduce_nccltests309_a")));
  REQUIRE(four.hosts == 4);
  REQUIRE(two.hosts == 2);
  REQUIRE(m.nvls_channels[static_cast<std::size_t>(GpuArch::Hopper)] == 16);
  // The schedule's stream per (block, tree) carries the 8 channels that climb that tree
  // (channel c takes tree c % 2), each with its own chunk: its slice is 8 chunks.
  auto chunk = [&](const TopologyFacts& f, std::int64_t bytes) {
    const Collective c{CollectiveOp::AllReduce, 8 * f.hosts, 0, Bytes{bytes}};
    return collective_cost(f, c, "nvls_tree", Protocol::Simple, m).options.slice_bytes.count / 8;
  };
  // 16 NVLS channels x 8 heads = 128 concurrent chunks. Two nodes: 128 KiB from 4 x 128 x
  // 128 KiB = 64 MiB up, 64 KiB down to 128 x 64 KiB = 8 MiB, 32 KiB below.
  CHECK(chunk(two, std::int64_t{1} << 30) == 131072);
  CHECK(chunk(two, 64 << 20) == 131072);
  CHECK(chunk(two, 32 << 20) == 65536);
  CHECK(chunk(two, 4 << 20) == 32768);
  // Four nodes: NCCL_NVLSTREE_MAX_CHUNKSIZE's default caps the chunk at 64 KiB whatever
  // the size; 32 KiB below 8 MiB as before.
  CHECK(chunk(four, std::int64_t{1} << 30) == 65536);
  CHECK(chunk(four, 8 << 20) == 65536);
  CHECK(chunk(four, 4 << 20) == 32768);
}

std::string write_file(const std::string& name, const std::string& text) {
  return test::write_test_file("collsim_cost_test_" + name + ".json", text);
}

TEST_CASE("calibration files override the model", "[coll][cost]") {
  const std::string path = write_file("ok", R"({
    "base_latency": {"ring": {"simple": "10us"}},
    "step_latency": {"net": {"tree": {"ll": "3us"}}},
    "efficiency": {"ll128": 0.9},
    "slice": {"simple": "1MiB"},
    "channels": 4,
    "channel_bandwidth": "20GB/s"
  })");
  const ProtocolModel m = load_calibration(path, nccl_default_model());
  REQUIRE(m.base_latency[static_cast<std::size_t>(NcclRow::Ring)][2] == Time::from_us(10));
  REQUIRE(m.base_latency[static_cast<std::size_t>(NcclRow::Ring)][0] == Time::from_ns(6600));  // untouched
  REQUIRE(m.step_latency[2][static_cast<std::size_t>(NcclRow::Tree)][0] == Time::from_us(3));
  REQUIRE(m.efficiency[1] == 0.9);
  REQUIRE(m.slice[2] == Bytes{1 << 20});
  const ChannelPlan plan = search_channels(topology_facts(default_topology()), m);
  REQUIRE(plan.channels == 4);
  REQUIRE(plan.per_channel.gb_per_s() == Approx(20));
}

TEST_CASE("LL pipelines by the block's 4 KiB sweep, at most 256 slices per channel", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts facts = topology_facts(make_star(StarSpec{16}));
  auto slice = [&](const char* algo, std::int64_t bytes, Protocol p = Protocol::LL) {
    return collective_cost(facts, Collective{CollectiveOp::AllReduce, 16, 0, Bytes{bytes}}, algo, p, m).options.slice_bytes;
  };
  const int ch = collective_cost(facts, Collective{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 30}}, "tree", Protocol::LL, m).channels;
  // 512 threads x 8 B: a channel's chunk of up to 1 MiB goes in 4 KiB slices.
  CHECK(slice("tree", std::int64_t{ch} << 20) == Bytes{4096});
  // Larger chunks: 256 slices, up to LL's 32 KiB step.
  CHECK(slice("tree", std::int64_t{ch} << 22) == Bytes{16384});
  CHECK(slice("tree", std::int64_t{1} << 30) == Bytes{32 * 1024});
  // The ring's chunk is a channel's share of one rank's block.
  CHECK(slice("ring", std::int64_t{ch} * 16 << 22) == Bytes{16384});
  // Other protocols keep their step.
  CHECK(slice("tree", std::int64_t{1} << 30, Protocol::Simple) == Bytes{512 * 1024});
}

TEST_CASE("calibration errors name the file and field", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  REQUIRE_THROWS_AS(load_calibration(write_file("unknown", R"({"latency": {}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("row", R"({"base_latency": {"mesh": {}}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("proto", R"({"base_latency": {"ring": {"ll64": "1us"}}})"), m),
                    ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("unit", R"({"base_latency": {"ring": {"ll": "1"}}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("class", R"({"step_latency": {"qpi": {}}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("eff", R"({"efficiency": {"ll": 0}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("slice", R"({"slice": {"ll": "0B"}})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("channels", R"({"channels": 65})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("bw", R"({"channel_bandwidth": "20"})"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration(write_file("json", R"({"channels": )"), m), ConfigError);
  REQUIRE_THROWS_AS(load_calibration("/nonexistent/cal.json", m), ConfigError);
  try {
    (void)load_calibration(write_file("msg", R"({"efficiency": {"simple": 2}})"), m);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    REQUIRE(e.source().find("msg.json") != std::string::npos);
    REQUIRE(e.field() == "/efficiency/simple");
  }
}

}  // namespace
TEST_CASE("NVLSTree's NVLS legs share a GPU's heads x s and NCCL's per-channel cap; its network legs are uncapped",
          "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts one = topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/dgx-h100.json"));
  const TopologyFacts four = topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) +
                                                               "/topologies/4x-dgx-h100-rail-8x400g-ib.json"));
  // One host: a GPU's 7 contributions (and 7 multicasts) share its NVLink port as NCCL
  // counts it (18 x 20.6 = 370.8 GB/s): 370.8 / 7 each.
  const Collective local{CollectiveOp::AllReduce, 8, 0, Bytes{1 << 30}};
  const auto nvls = collective_cost(one, local, "nvls", Protocol::Simple, m).step.flow_cap;
  REQUIRE(nvls);
  CHECK(nvls->gb_per_s() == Approx(370.8 / 7));
  // Across hosts, NCCL's NVLS graph has 8 heads at s = 40 GB/s ((8 + 1) x 40 <= 370.8, the
  // head's port loaded twice): a GPU's 7 x 2 legs (two trees) share 8 x 40 = 320 GB/s,
  // 22.86 each. NCCL's cap on 4+ nodes, 45.5 GB/s per head, makes busbw at most 8 x 45.5:
  // per stream (half a block) 45.5 x n / (4 (n - 1)) = 11.74 GB/s of payload, 15.79 on the
  // wire at nvlsEfficiency x 7/8 = 0.744. The network legs carry no cap.
  const Collective wide{CollectiveOp::AllReduce, 32, 0, Bytes{1 << 30}};
  const CollectiveCost tree = collective_cost(four, wide, "nvls_tree", Protocol::Simple, m);
  CHECK_FALSE(tree.step.flow_cap);
  REQUIRE(tree.step.switch_leg_cap);
  const double eff = 0.85 * 7 / 8;
  CHECK(tree.step.wire_inflation == Approx(1 / eff));
  CHECK(tree.step.switch_leg_cap->gb_per_s() == Approx(std::min(320.0 / 14, 45.5 * 32 / (4.0 * 31) / eff)));
  CHECK(tree.step.cap_of(TransferLeg::FromSwitch) == tree.step.switch_leg_cap);
  CHECK_FALSE(tree.step.cap_of(TransferLeg::EndToEnd));
  // tuning.cc's busBw: 8 heads x min(intraBw 40 x 0.744 x 2, interBw 40, cap 45.5) = 320.
  CHECK(tree.nccl_busbw_gbps == Approx(320.0));
  // Its latency in NCCL's model: intraLat 25 + 2 x log2(4) x interLat 20.9 us, no baseLat.
  const auto t = nccl_model_time(four, Collective{CollectiveOp::AllReduce, 32, 0, Bytes{0}}, "nvls_tree", Protocol::Simple,
                                 collective_cost(four, Collective{CollectiveOp::AllReduce, 32, 0, Bytes{0}}, "nvls_tree",
                                                 Protocol::Simple, m),
                                 nullptr);
  REQUIRE(t);
  CHECK(t->us() == Approx(25 + 2 * 2 * 20.9));
}

TEST_CASE("NVLSTree is unusable where no NVLS channel speed fits (NCCL's NVLS graph search fails)", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts four = topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) +
                                                               "/topologies/4x-dgx-h100-rail-8x400g-ib.json"));
  const Collective c{CollectiveOp::AllReduce, 32, 0, Bytes{1 << 30}};
  // A ring graph of one channel at 0.5 GB/s leaves each of the 8 heads 0.0625 GB/s of
  // network: below Hopper's slowest listed speed (0.12), so no NVLS graph, no NVLSTree.
  NcclGraph slow;
  slow.hosts = 4;
  slow.searched_channels = 1;
  slow.searched_speed_gbps = 0.5;
  const CollectiveCost none = collective_cost(four, c, "nvls_tree", Protocol::Simple, m, {}, &slow);
  REQUIRE(none.unusable);
  CHECK(none.unusable->find("finds no NVLS channel speed") != std::string::npos);
  CHECK_FALSE(nccl_model_time(four, c, "nvls_tree", Protocol::Simple, none, &slow));
  // At 1 GB/s (0.125 per head) the slowest speed fits: usable and priced.
  slow.searched_speed_gbps = 1.0;
  const CollectiveCost some = collective_cost(four, c, "nvls_tree", Protocol::Simple, m, {}, &slow);
  REQUIRE_FALSE(some.unusable);
  CHECK(some.nccl_busbw_gbps > 0);
  CHECK(nccl_model_time(four, c, "nvls_tree", Protocol::Simple, some, &slow));
}

TEST_CASE("sharp runs only on a star of hosts: NCCL's CollNet through multi-GPU hosts is not modelled", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  // 16 hosts, each one link from one switch: a contribution reaches the switch in one hop.
  const TopologyFacts star = topology_facts(make_star(StarSpec{16}));
  CHECK(star.one_switch_star);
  const Collective c16{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 20}};
  CHECK_FALSE(collective_cost(star, c16, "sharp", Protocol::Ideal, m).unusable);
  // GPUs behind PCIe switches, NICs and rail switches: refused for every protocol, with why.
  const TopologyFacts dgx = topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) +
                                                              "/topologies/4x-dgx-h100-rail-8x400g-ib.json"));
  CHECK_FALSE(dgx.one_switch_star);
  const Collective c32{CollectiveOp::AllReduce, 32, 0, Bytes{1 << 20}};
  for (Protocol p : {Protocol::Ideal, Protocol::LL, Protocol::Simple}) {
    const CollectiveCost cost = collective_cost(dgx, c32, "sharp", p, m);
    REQUIRE(cost.unusable);
    CHECK(cost.unusable->find("star of hosts") != std::string::npos);
  }
  // One GPU server: its GPUs link to an NVSwitch, not a network switch.
  CHECK_FALSE(topology_facts(load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/dgx-h100.json")).one_switch_star);
}

TEST_CASE("NVLS and NVLSTree need more than 2 GPUs per host, as NCCL's ncclNvlsInit", "[coll][cost]") {
  const ProtocolModel m = nccl_default_model();
  Topology two = load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/dgx-h100.json");
  two.ranks.resize(2);
  const Collective c{CollectiveOp::AllReduce, 2, 0, Bytes{1 << 20}};
  const CollectiveCost cost = collective_cost(topology_facts(two), c, "nvls", Protocol::Simple, m);
  REQUIRE(cost.unusable);
  CHECK(cost.unusable->find("more than 2 GPUs per host") != std::string::npos);
}

TEST_CASE("One host's NVLS moves S + S/n each way per GPU: busbw falls with fewer GPUs", "[coll][cost]") {
  // GPU j's multimem.ld_reduce makes the switch read block j from all n GPUs (j too) and
  // returns the sum to j; its multimem.st sends the sum up, the switch writes it to all n.
  // Per GPU and direction: S + S/n, at 370.8 GB/s (H100's NVLink as NCCL counts it) x 0.85
  // (NCCL's nvlsEfficiency) = 315.2 GB/s, so algbw = 315.2 n/(n+1) and busbw = 2(n-1)/n of
  // that: 378.2 GB/s on 4, 490.3 on 8 (8 GiB: latency within 2 %); on 2 NCCL runs no NVLS.
  const Topology h100 = load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/dgx-h100.json");
  const ProtocolModel m = nccl_default_model();
  for (const auto& [n, busbw] : {std::pair{4, 378.2}, std::pair{8, 490.3}}) {
    Topology t = h100;
    t.ranks.resize(static_cast<std::size_t>(n));
    const Collective c{CollectiveOp::AllReduce, n, 0, Bytes{std::int64_t{8} << 30}};
    const CollectiveCost cost = collective_cost(topology_facts(t), c, "nvls", Protocol::Simple, m);
    CHECK(cost.step.wire_inflation == Approx((n + 1.0) / (n - 1.0) / 0.85));
    LinkGraph graph(t);
    CollectiveRequest req;
    req.algorithms = {"nvls"};
    req.protocols = {Protocol::Simple};
    const CollectivePrediction p = predict_collective(graph, c, req);
    CHECK(p.busbw_gbps == Approx(busbw).epsilon(0.02));
    CHECK(p.busbw_gbps < busbw);
  }
}

}  // namespace collsim
