// Sweeps: the checked affine all-reduce fit against playing every size, best-bucket
// selection and scaling efficiency; the generated sweep_cluster's routes.
#include <catch2/catch.hpp>

#include "sim/coll/affine_collective_cost.hpp"
#include "sim/coll/predict.hpp"
#include "sim/topo/cluster_topology.hpp"
#include "sim/train/sweep.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {


Topology sweep_cluster(int ranks) {
  SweepClusterSpec s;
  s.gpus_per_host = 4;
  s.hosts = (ranks + 3) / 4;
  Topology t = make_sweep_cluster(s);
  t.ranks.resize(static_cast<std::size_t>(ranks));
  return t;
}

ComputeModel h100(const Workload& w) { return make_compute_model(w, *find_device("H100")); }

}  // namespace

TEST_CASE("cluster routes: NVSwitch inside a host, NICs between hosts", "[train][sweep]") {
  const Topology t = sweep_cluster(8);
  LinkGraph g(t);
  // Rank 0 -> 1 (same host): GPU -> NVSwitch -> GPU, 2 links of 250 ns.
  CHECK(g.route(0, 1).links.size() == 2);
  CHECK(g.route(0, 1).latency == Time::from_ns(500));
  // Rank 3 -> 4 (next host): GPU -> NIC -> switch -> NIC -> GPU: 4 links,
  // 0.5 + 1 + 1 + 0.5 us.
  CHECK(g.route(3, 4).links.size() == 4);
  CHECK(g.route(3, 4).latency == Time::from_ns(3000));
}

TEST_CASE("affine all-reduce fit equals playing the ring at multiples of N", "[train][sweep]") {
  const Topology t = sweep_cluster(16);
  LinkGraph g(t);
  AffineCollectiveCost fit(g, "ring", Bytes{64 << 20});
  REQUIRE(fit.affine());
  CHECK(fit.plays() == 3);
  for (std::int64_t bytes : {16LL * 1000, 16LL * 123457, 16LL * 1'000'000}) {
    const Time played = predict_collective(g, Collective{CollectiveOp::AllReduce, 16, 0, Bytes{bytes}}, "ring").time;
    // Within the rounding allowance of 4(N-1) ps.
    CHECK(std::abs((fit.time(CollectiveOp::AllReduce, Bytes{bytes}) - played).ps) <= 60);
  }
}

TEST_CASE("sweep: affine and exact agree; best bucket and efficiency", "[train][sweep]") {
  const Workload w = load_workload_file(test::shipped_workload("resnet50"));
  SweepSpec spec;
  spec.ranks = {4, 8};
  spec.bucket_caps = {bucket_cap_from_mb(5), bucket_cap_from_mb(25), bucket_cap_from_mb(100)};
  const SweepResult fast = run_sweep(w, h100(w), sweep_cluster, spec);
  spec.exact = true;
  const SweepResult exact = run_sweep(w, h100(w), sweep_cluster, spec);
  REQUIRE(fast.rows.size() == 6);
  REQUIRE(exact.rows.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(i);
    // Bucket sizes are not multiples of N in general: remainder bytes shift a ring step by
    // at most a byte per chunk; allow 1 ns on a multi-ms step.
    CHECK(std::abs((fast.rows[i].iteration - exact.rows[i].iteration).ps) <= 1000);
  }
  // The affine sweep needs 3 plays per world size when its line verifies; where the
  // ring's ceil(S/N) chunking makes time a step function of bytes it falls back to
  // exact plays of that world size. Never more plays than the exact sweep.
  CHECK(fast.collective_plays >= 6);
  CHECK(exact.collective_plays >= fast.collective_plays);
  for (std::size_t n = 0; n < 2; ++n) {
    Time best = Time::max();
    for (std::size_t b = 0; b < 3; ++b) best = std::min(best, fast.rows[n * 3 + b].iteration);
    CHECK(fast.best[n].iteration == best);
  }
  // Efficiency = best time at the smallest world size / best time at N: 1 for the first.
  CHECK(fast.best[0].scaling_efficiency == 1.0);
  CHECK(fast.best[1].scaling_efficiency ==
        Approx(static_cast<double>(fast.best[0].iteration.ps) / static_cast<double>(fast.best[1].iteration.ps)));
}

TEST_CASE("prefetched NCCL predictions equal playing them one by one", "[train][sweep]") {
  const Topology t = sweep_cluster(16);
  LinkGraph g1(t), g2(t);
  CommSpec nccl;  // auto/auto: NCCL's choice per size
  CollectiveCostCache serial(g1, resolve_comm_spec(nccl, t, true));
  CollectiveCostCache parallel(g2, resolve_comm_spec(nccl, t, true));
  const std::vector<std::pair<CollectiveOp, Bytes>> wanted{
      {CollectiveOp::AllReduce, Bytes{4096}},     {CollectiveOp::AllReduce, Bytes{1 << 20}},
      {CollectiveOp::AllReduce, Bytes{25 << 20}}, {CollectiveOp::Broadcast, Bytes{100000}},
      {CollectiveOp::AllReduce, Bytes{1 << 20}},  {CollectiveOp::AllReduce, Bytes{0}}};
  parallel.prefetch(wanted, 3);
  CHECK(parallel.predictions() == 4);  // duplicates and empty collectives are not played
  for (const auto& [op, bytes] : wanted) {
    CHECK(parallel.time(op, bytes) == serial.time(op, bytes));
    const auto a = parallel.prediction(op, bytes), b = serial.prediction(op, bytes);
    REQUIRE(a.has_value() == b.has_value());
    if (a) CHECK((a->algorithm == b->algorithm && a->protocol == b->protocol && a->channels == b->channels));
  }
  CHECK(parallel.predictions() == 4);  // every later lookup came from the cache
}

}  // namespace collsim
