// Acceptance 4 and 5: --algo auto picks the tree for small all-reduces across many hosts
// and the ring for large ones, with the crossover found by bisection; a parameter server
// on 64 hosts is about N/2 times slower than the ring.
#include <catch2/catch.hpp>

#include "sim/coll/crossover.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/topo/generators.hpp"

namespace collsim {
namespace {

Topology star(int hosts) { return make_star(StarSpec{hosts, Bandwidth::gbps(100), Time::from_us(1)}); }

TEST_CASE("auto picks tree for small and ring for large all-reduces on 32 hosts", "[coll][auto]") {
  const Topology topo = star(32);
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = parse_algorithm_list("auto", CollectiveOp::AllReduce);
  req.protocols = parse_protocol_list("auto");
  REQUIRE(req.algorithms == std::vector<std::string>{"ring", "tree", "nvls", "nvls_tree"});
  std::vector<CollectivePrediction> rows;
  for (std::int64_t s : {std::int64_t{1} << 10, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
    rows.push_back(predict_collective(graph, Collective{CollectiveOp::AllReduce, 32, 0, Bytes{s}}, req));
  }
  // Small: ring pays 2(N-1) = 62 network steps of hwLat(NET, Tree, LL) = 5 us (one GPU per
  // node: NCCL uses the Tree row) = 310 us; the tree pays 2 x depth (about 2 log2 32) of them.
  REQUIRE(rows[0].algorithm == "tree");
  REQUIRE(rows[0].protocol == Protocol::LL);
  REQUIRE(rows[1].algorithm == "tree");
  // Large: both move about 2S through every host link, but NCCL prices the tree at 92 %.
  REQUIRE(rows[2].algorithm == "ring");
  REQUIRE(rows[2].protocol == Protocol::Simple);
  const std::vector<Crossover> xs = find_crossovers(graph, rows, req);
  const auto it = std::find_if(xs.begin(), xs.end(), [](const Crossover& x) {
    return x.from_algorithm == "tree" && x.to_algorithm == "ring";
  });
  REQUIRE(it != xs.end());
  REQUIRE(it->at > Bytes{1 << 20});
  REQUIRE(it->at < Bytes{1 << 30});
  // Just below the crossover the tree still wins; at it, the ring does.
  const auto below =
      predict_collective(graph, Collective{CollectiveOp::AllReduce, 32, 0, Bytes{it->at.count * 99 / 100}}, req);
  const auto at = predict_collective(graph, Collective{CollectiveOp::AllReduce, 32, 0, it->at}, req);
  REQUIRE(below.algorithm == "tree");
  REQUIRE(at.algorithm == "ring");
}

TEST_CASE("parameter server on 64 hosts is about N/2 slower than the ring", "[coll][ps]") {
  const int n = 64;
  const Topology topo = star(n);
  LinkGraph graph(topo);
  const std::int64_t S = std::int64_t{64} << 20;
  CollectiveRequest req;
  req.protocols = {Protocol::Ideal};
  // A parameter server streams: pushes and returns are pipelined in slices (512 KiB, the
  // Simple step), so the server's two link directions work at once. Unsliced (ideal's
  // default), PS is the textbook push-then-pull, 2 (N-1) S / B, and the ratio is N.
  req.overrides.slice = Bytes{512 * 1024};
  req.algorithms = {"ps"};
  const double ps = predict_collective(graph, Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, req).time.seconds();
  req.algorithms = {"ring"};
  const double ring = predict_collective(graph, Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, req).time.seconds();
  // Ring: 2(N-1) steps of S/N; pipelined slices stream behind the first, so the latency
  // alpha = 2 us (two star links) is paid once per step: 2(N-1) alpha + 2(N-1)/N S/B.
  // PS: the server's down-link takes (N-1) S of pushes while its up-link returns (N-1) S
  // of sums; pipelined in L = 64 slices (the slice bound) they overlap except for one
  // slice: (N-1) S/B (1 + 1/L). Without latency the ratio is N/2 (1 + 1/L).
  const double B = 12.5e9;
  const double alpha = 2e-6;
  const double L = 64;
  const double ring_expected = 2.0 * (n - 1) * alpha + 2.0 * (n - 1) / n * S / B;
  const double ps_expected = (n - 1) * S / B * (1 + 1 / L);
  REQUIRE(ring == Approx(ring_expected).epsilon(0.01));
  REQUIRE(ps == Approx(ps_expected).epsilon(0.01));
  REQUIRE(ps / ring == Approx(ps_expected / ring_expected).epsilon(0.02));
  REQUIRE(ps / ring > 0.9 * n / 2.0);
  REQUIRE(ps / ring < 1.1 * n / 2.0);
}

TEST_CASE("sharded parameter server is as fast as the ring", "[coll][ps]") {
  // 16 hosts (every rank talks to every rank at once: N^2 concurrent flows). Each rank
  // serves S/N: it pushes and pulls (N-1) S/N, like the ring's 2(N-1)/N S, but in two
  // latency-bound phases instead of 2(N-1) steps.
  const int n = 16;
  const Topology topo = star(n);
  LinkGraph graph(topo);
  const std::int64_t S = std::int64_t{64} << 20;
  CollectiveRequest req;
  req.protocols = {Protocol::Ideal};
  req.algorithms = {"ps_sharded"};
  const double sharded = predict_collective(graph, Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, req).time.seconds();
  req.algorithms = {"ring"};
  const double ring = predict_collective(graph, Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, req).time.seconds();
  REQUIRE(sharded / ring == Approx(1.0).epsilon(0.05));
}

TEST_CASE("NCCL_ALGO / NCCL_PROTO style lists", "[coll][auto]") {
  REQUIRE(parse_algorithm_list("Ring,Tree", CollectiveOp::AllReduce) == std::vector<std::string>{"ring", "tree"});
  REQUIRE(parse_algorithm_list("^tree", CollectiveOp::AllReduce) == std::vector<std::string>{"ring", "nvls", "nvls_tree"});
  REQUIRE(parse_algorithm_list("auto", CollectiveOp::AllGather) == std::vector<std::string>{"ring", "pat"});
  REQUIRE(parse_algorithm_list("auto", CollectiveOp::AllToAll) == std::vector<std::string>{"direct"});
  REQUIRE(parse_protocol_list("LL,Simple") == std::vector<Protocol>{Protocol::LL, Protocol::Simple});
  REQUIRE(parse_protocol_list("^ll128") == std::vector<Protocol>{Protocol::LL, Protocol::Simple});
  REQUIRE_THROWS_AS(parse_algorithm_list("ring,bogus", CollectiveOp::AllReduce), std::invalid_argument);
  REQUIRE_THROWS_AS(parse_algorithm_list("ring,", CollectiveOp::AllReduce), std::invalid_argument);
  REQUIRE_THROWS_AS(parse_protocol_list("^ll,ll128,simple"), std::invalid_argument);
  REQUIRE_THROWS_AS(parse_protocol_list("fast"), std::invalid_argument);
}

TEST_CASE("auto skips what cannot run here", "[coll][auto]") {
  // nvls needs one NVSwitch host of Hopper GPUs: usable on the built-in node, not on a
  // star of hosts, where ll128 (GPU-only) is skipped too.
  const Topology topo = star(4);
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {"nvls"};
  req.protocols = {Protocol::Simple};
  REQUIRE_THROWS_AS(predict_collective(graph, Collective{CollectiveOp::AllReduce, 4, 0, Bytes{1 << 20}}, req),
                    std::invalid_argument);
  req.algorithms = {"ring"};
  req.protocols = {Protocol::LL128};
  REQUIRE_THROWS_AS(predict_collective(graph, Collective{CollectiveOp::AllReduce, 4, 0, Bytes{1 << 20}}, req),
                    std::invalid_argument);
  const Topology node = default_topology();
  LinkGraph g2(node);
  req.algorithms = {"nvls"};
  req.protocols = {Protocol::Simple};
  REQUIRE(predict_collective(g2, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{1 << 20}}, req).algorithm == "nvls");
}

}  // namespace
}  // namespace collsim
