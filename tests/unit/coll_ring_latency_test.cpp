// A ring across hosts pays NCCL's ring latency, (steps - netSteps) x intraLat + netSteps x
// interLat, spread evenly over its steps, not interLat on every step of the rank before a
// network hop (the replay orders a rank's sends on one connection). intraLat is at least
// NCCL's net overhead across hosts: 2 us on AMD hosts, 1 us on Intel (getNetOverhead).
#include <catch2/catch.hpp>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/predict.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/dgx_a100_hosts.hpp"

namespace collsim {
namespace {

TEST_CASE("ring latency across hosts: NCCL's sum spread over the steps", "[coll][ring_latency]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts two = topology_facts(test::dgx_a100_hosts(2, "xeon-cascade-lake"));
  const Collective ar{CollectiveOp::AllReduce, 16, 0, Bytes{8}};
  // LL on Intel hosts: NVLink 0.6 us, raised to the network's 1 us post overhead across
  // hosts; network 2.7 us; 2 x 15 = 30 steps, 2 of them across the network.
  const CollectiveCost ll = collective_cost(two, ar, "ring", Protocol::LL, m);
  REQUIRE(ll.step.uniform_step_latency);
  CHECK(ll.step.uniform_step_latency->us() == Approx((28 * 1.0 + 2 * 2.7) / 30).margin(1e-6));
  // The per-class figures stay NCCL's (topo nccl prints them; auto picks by them).
  CHECK(ll.step.step_latency[static_cast<std::size_t>(LinkClass::Net)] == Time::from_ns(2700));
  // All-gather: 15 steps, 1 across the network; Simple: 3.4 (above 3 x 1 us) and 14 us.
  const Collective ag{CollectiveOp::AllGather, 16, 0, Bytes{1 << 20}};
  const CollectiveCost simple = collective_cost(two, ag, "ring", Protocol::Simple, m);
  REQUIRE(simple.step.uniform_step_latency);
  CHECK(simple.step.uniform_step_latency->us() == Approx((14 * 3.4 + 1 * 14.0) / 15).margin(1e-6));
  // The DGX A100's own EPYC hosts: 2 us post overhead, 6 us for Simple (above NVLink's 3.4).
  const TopologyFacts amd = topology_facts(test::dgx_a100_hosts(2));
  CHECK(collective_cost(amd, ar, "ring", Protocol::LL, m).step.uniform_step_latency->us() ==
        Approx((28 * 2.0 + 2 * 2.7) / 30).margin(1e-6));
  CHECK(collective_cost(amd, ag, "ring", Protocol::Simple, m).step.uniform_step_latency->us() ==
        Approx((14 * 6.0 + 1 * 14.0) / 15).margin(1e-6));
  // One host: each step is priced by its route as before; a tree is never spread.
  const TopologyFacts one = topology_facts(test::dgx_a100_hosts(1));
  CHECK(!collective_cost(one, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{8}}, "ring", Protocol::LL, m)
             .step.uniform_step_latency);
  CHECK(!collective_cost(two, ar, "tree", Protocol::LL, m).step.uniform_step_latency);
  CHECK(!collective_cost(two, ar, "ring", Protocol::Ideal, m).step.uniform_step_latency);
}

TEST_CASE("ring latency across hosts: an 8-byte all-reduce takes NCCL's latency, not 30 network steps",
          "[coll][ring_latency]") {
  const Topology topo = test::dgx_a100_hosts(2, "xeon-cascade-lake");
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {"ring"};
  req.protocols = {Protocol::LL};
  const CollectivePrediction p = predict_collective(graph, Collective{CollectiveOp::AllReduce, 16, 0, Bytes{8}}, req);
  // baseLat 6.6 us + 28 x 1.0 + 2 x 2.7 = 40 us, plus a few bytes' wire time; every
  // step at the network's 2.7 us would be 6.6 + 30 x 2.7 = 87.6 us.
  CHECK(p.time.us() == Approx(40.0).margin(1.0));
}

}  // namespace
}  // namespace collsim
