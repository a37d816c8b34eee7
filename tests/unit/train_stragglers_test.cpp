// DDP steps with slow ranks, on the hand model of train_ddp_timeline_test (4 layers of 1 ms
// forward and 2 ms backward, 1e6 B gradients each, 1 ms optimizer, copies of 2 us at 1e12
// B/s, collectives at 1 ns per byte, buckets {p3}, {p2, p1}, {p0}).
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/train/stragglers.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

DdpStragglers run_stragglers(const StragglerSpec& spec, int ranks = 32) {
  return simulate_stragglers(hand::model(), hand::device(), hand::one_ns_per_byte, hand::options(), ranks, spec);
}

}  // namespace

TEST_CASE("one rank at half speed in a 32-GPU DDP step: the step is its compute plus the exposed communication after it",
          "[train][stragglers]") {
  StragglerSpec spec;
  spec.speeds = {{5, 0.5}};
  const DdpStragglers r = run_stragglers(spec);
  // At half speed every kernel doubles: forward 0-8 ms; L3 backward 8-12, copy-in p3 (4 us)
  // -> 12.004, b0's 1 ms all-reduce 12.004-13.004; L2 -> 16.004, copy-in -> 16.008; L1 ->
  // 20.008, copy-in -> 20.012, b1 (2 ms) 20.012-22.012; L0 -> 24.012, copy-in -> 24.016, b2
  // 24.016-25.016. Finalize: copy-outs b0 (4 us) -> 24.020 and b1 (8 us) -> 24.028, b2's
  // waits for its all-reduce: 25.016-25.020; the optimizer (2 ms) -> 27.020 ms.
  // Its compute: 8 + 16 + (4 x 4 + 4 + 8 + 4) us + 2 = 26.032 ms; exposed after it: the
  // wait 24.028 -> 25.016 = 0.988 ms; 26.032 + 0.988 = 27.020.
  REQUIRE(r.steps.size() == 1);
  CHECK(r.steps[0].slowest_rank == 5);
  CHECK(r.first.iteration == us(27020));
  CHECK(r.first.exposed_comm == us(988));
  const RankWait& slow = r.ranks[5];
  CHECK(slow.compute == us(26032));
  CHECK(r.first.iteration == slow.compute + r.first.exposed_comm);
  CHECK(slow.waiting == us(988));
  // Every other rank computes 4 + 8 + 0.016 + 1 = 13.016 ms and waits the rest: 14.004 ms.
  REQUIRE(r.ranks.size() == 32);
  CHECK(r.ranks[0].compute == us(13016));
  CHECK(r.ranks[0].waiting == us(14004));
  // With every rank at speed 1 the step is 14.010 ms (train_ddp_timeline_test).
  CHECK(r.nominal_iteration == us(14010));
}

TEST_CASE("one rank at half speed in a ZeRO-2 step: the same rule for a sharded step", "[train][stragglers]") {
  // The hand model under ZeRO-2 on 4 ranks: gradients 2 B per element (Adam mixed), reduce
  // bucket 1e6 B = 500,000 elements, so bucket 0 = {p3, p2} (reduced in p1's hook, at the
  // end of L1's backward) and bucket 1 = {p1, p0} (at the end of backward). Reduce-scatter
  // 3 ms and all-gather 1 ms, whatever the size; optimizer 1 ms over a 1/4 shard.
  ShardingOptions o;
  o.strategy = Sharding::Zero2;
  o.reduce_bucket_bytes = Bytes{1'000'000};
  const GroupCostFn cost = [](CollectiveOp op, Bytes, CommGroup) { return us(op == CollectiveOp::ReduceScatter ? 3000 : 1000); };
  StragglerSpec spec;
  spec.speeds = {{2, 0.5}};
  const ShardedStragglers r = simulate_sharded_stragglers(hand::model(), hand::device(), cost, o, 4, spec);
  // At half speed: forward 0-8 ms; backward L3 8-12, L2 12-16, L1 16-20, L0 20-24; bucket 0
  // reduces 20-23, bucket 1 24-27; the optimizer (0.5 ms) 27-27.5; the updated parameters
  // all-gathered in two chunks 27.5-29.5 ms. Compute 8 + 16 + 0.5 = 24.5 ms, exposed 5 ms.
  CHECK(r.steps[0].slowest_rank == 2);
  CHECK(r.first.iteration == us(29500));
  CHECK(r.first.exposed_comm == us(5000));
  CHECK(r.ranks[2].compute == us(24500));
  CHECK(r.ranks[2].waiting == r.first.exposed_comm);
  // Nominal: forward 0-4, backward 4-12, bucket 0 10-13, bucket 1 13-16, optimizer
  // 16-16.25, gathers -18.25 ms (sharded_timeline_test). Rank 0 computes 12.25 ms.
  CHECK(r.nominal_iteration == us(18250));
  CHECK(r.ranks[0].compute == us(12250));
  CHECK(r.ranks[0].waiting == us(17250));
}

TEST_CASE("jitter: seeded log-normal factors per rank and step, the same for the same seed", "[train][stragglers]") {
  StragglerSpec spec;
  spec.jitter_sigma = 0.05;
  spec.steps = 50;
  spec.seed = 7;
  const DdpStragglers a = run_stragglers(spec), b = run_stragglers(spec);
  REQUIRE(a.steps.size() == 50);
  for (std::size_t k = 0; k < a.steps.size(); ++k) {
    CHECK(a.steps[k].iteration == b.steps[k].iteration);
    CHECK(a.steps[k].slowest_rank == b.steps[k].slowest_rank);
  }
  spec.seed = 8;
  const DdpStragglers c = run_stragglers(spec);
  CHECK(c.mean != a.mean);
  // The slowest of 32 ranks is almost always slower than the median: the mean step is
  // longer than the nominal one; p50 <= p99 <= max.
  CHECK(a.mean > a.nominal_iteration);
  CHECK(a.p50 <= a.p99);
  CHECK(a.p99 <= a.max);
}

TEST_CASE("straggler inputs out of range name their field", "[train][stragglers]") {
  auto field_of = [](const StragglerSpec& s) {
    try {
      (void)run_stragglers(s, 8);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("no error");
  };
  StragglerSpec s;
  s.speeds = {{8, 0.5}};  // ranks 0..7
  CHECK(field_of(s) == "speeds");
  s.speeds = {{1, 0.0}};
  CHECK(field_of(s) == "speeds");
  s.speeds = {{1, 11.0}};
  CHECK(field_of(s) == "speeds");
  s.speeds = {};
  s.jitter_sigma = 3;
  CHECK(field_of(s) == "jitter_sigma");
  s.jitter_sigma = 0.1;
  s.steps = 0;
  CHECK(field_of(s) == "steps");
}

}  // namespace collsim
