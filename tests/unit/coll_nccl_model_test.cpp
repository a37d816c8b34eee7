// Acceptance 3: with --protocol simple on the built-in 8 x H100 NVSwitch node, ring
// all-reduce reproduces NCCL's latency model at 8 B and a busbw plateau that follows from
// the link bandwidth and the channel count.
#include <catch2/catch.hpp>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/predict.hpp"
#include "sim/topo/generators.hpp"

namespace collsim {
namespace {

CollectivePrediction ring_simple(LinkGraph& graph, std::int64_t bytes) {
  CollectiveRequest req;
  req.algorithms = {"ring"};
  req.protocols = {Protocol::Simple};
  return predict_collective(graph, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{bytes}}, req);
}

TEST_CASE("channel search on the H100 node: 14 channels of 30 GB/s", "[coll][nccl]") {
  // 450 GB/s per GPU; NCCL's SM90 intra speeds start 60, 50, ...: 60 fits 7 times
  // (420 <= 450); 60 >= 50 so ncclTopoDupChannels doubles to 14 channels at 30 GB/s.
  const TopologyFacts facts = topology_facts(default_topology());
  const ChannelPlan plan = search_channels(facts, nccl_default_model());
  REQUIRE(plan.channels == 14);
  REQUIRE(plan.per_channel.gb_per_s() == Approx(30.0));
}

TEST_CASE("ring/simple all-reduce at 8 B costs NCCL's 8.4 + 2(n-1) x 3.4 us", "[coll][nccl]") {
  const Topology topo = default_topology();
  LinkGraph graph(topo);
  const CollectivePrediction p = ring_simple(graph, 8);
  // NCCL: 8 B < 2 x 512 threads x 64 B, so one channel. baseLat(Ring, Simple) = 8.4 us,
  // hwLat(NVLINK, Ring, Simple) = 3.4 us per step, 2(8-1) = 14 steps: 56.0 us. The data:
  // 8 B in 8 blocks of 1 B; each step moves 1 B at the channel's 30 GB/s, which the
  // flow model rounds up to a whole picosecond.
  REQUIRE(p.channels == 1);
  const Time per_step_bytes = transfer_time(Bytes{1}, Bandwidth::gb_per_s(30));
  REQUIRE(per_step_bytes.ps == 34);
  const Time nccl_latency = Time::from_seconds((8.4 + 14 * 3.4) * 1e-6);
  REQUIRE(nccl_latency == Time::from_us(56));
  REQUIRE(p.time == nccl_latency + per_step_bytes * 14);
}

TEST_CASE("a thread driving several GPUs launches no faster than G x launch_overhead", "[coll][nccl]") {
  const Topology topo = default_topology();
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {"ring"};
  req.protocols = {Protocol::Simple};
  const Collective c{CollectiveOp::AllReduce, 8, 0, Bytes{8}};
  const Time alone = predict_collective(graph, c, req).time;  // 56 us (test above)
  REQUIRE(req.model.launch_overhead == Time::from_us(5));
  // 8 GPUs from one thread: 8 x 5 = 40 us of launches per operation, below 56 us.
  req.gpus_per_thread = 8;
  CHECK(predict_collective(graph, c, req).time == alone);
  // 16 GPUs (two nodes' worth): 80 us, above the collective itself.
  req.gpus_per_thread = 16;
  CHECK(predict_collective(graph, c, req).time == Time::from_us(80));
  // The ideal protocol is the alpha-beta what-if: no launches.
  req.protocols = {Protocol::Ideal};
  const Time ideal = predict_collective(graph, c, req).time;
  CHECK(ideal < Time::from_us(80));
}

TEST_CASE("ring/simple busbw plateau = channels x channel bandwidth", "[coll][nccl]") {
  const Topology topo = default_topology();
  LinkGraph graph(topo);
  // NCCL's channel graph (coll_nccl_graph_test): 450 GB/s is 18 x 20.6 = 370.8 GB/s to
  // NCCL; 60 GB/s rings fit 6 times (360), doubled to 12 channels x 30 GB/s = 360 GB/s.
  // NCCL's model for size S: t = 56 us + S / algBw with algBw = 360 x 8 / 14 GB/s, so
  // busbw = S 2(n-1)/n / t tends to 360 GB/s. Each channel is one thread block sending in order, capped at its
  // speed, so the simulation streams at exactly that rate once the pipeline is full.
  for (std::int64_t S : {std::int64_t{256} << 20, std::int64_t{1} << 30, std::int64_t{4} << 30}) {
    const CollectivePrediction p = ring_simple(graph, S);
    const double nccl_us = 56.0 + static_cast<double>(S) / (1000.0 * 360.0 * 8.0 / 14.0);
    REQUIRE(p.time.us() == Approx(nccl_us).epsilon(0.005));
    const double plateau = 360.0 * (1.0 - 56.0 / nccl_us);
    REQUIRE(p.busbw_gbps == Approx(plateau).epsilon(0.005));
  }
  const CollectivePrediction big = ring_simple(graph, std::int64_t{4} << 30);
  REQUIRE(big.busbw_gbps < 360.0);
  REQUIRE(big.busbw_gbps > 0.99 * 360.0);
}

TEST_CASE("LL and LL128 follow NCCL's efficiencies and caps", "[coll][nccl]") {
  const Topology topo = default_topology();
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {"ring"};
  // LL at 8 B: baseLat 6.6 + 14 x hwLat(NVLINK, Ring, LL) 0.6 = 15.0 us, plus 14 steps
  // of 1 B carried as 2 wire bytes (LL is 50 % efficient).
  req.protocols = {Protocol::LL};
  const CollectivePrediction ll = predict_collective(graph, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{8}}, req);
  REQUIRE(ll.time.us() == Approx(15.0).epsilon(1e-4));
  // LL128 at 1 GiB: per channel min(30 GB/s wire x 0.92, 36.7 GB/s Hopper LL128 cap) =
  // 27.6 GB/s payload, 12 channels: busbw plateau 331.2 GB/s; latency 14 + 14 x 1.9 us.
  req.protocols = {Protocol::LL128};
  const std::int64_t S = std::int64_t{1} << 30;
  const CollectivePrediction ll128 = predict_collective(graph, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{S}}, req);
  const double expected_us = 14.0 + 14 * 1.9 + static_cast<double>(S) * 1.75 / (331.2 * 1000.0);
  REQUIRE(ll128.time.us() == Approx(expected_us).epsilon(0.005));
}

}  // namespace
}  // namespace collsim
