// Elastic DDP runs (sim/train/elastic.hpp), derived by hand: a membership of R ranks has
// a step of R ms and broadcasts at 1 ns per byte, so every phase, rebuild and total below
// is arithmetic.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/train/elastic.hpp"
#include "tests/unit/ddp_hand_model.hpp"

using namespace collsim;

namespace {

// Records which memberships were asked for.
struct FakeCluster {
  std::vector<int> asked;
  MembershipFn fn() {
    return [this](int ranks) {
      asked.push_back(ranks);
      MembershipModel m;
      m.step.iteration = Time::from_ms(ranks);
      m.cost = hand::one_ns_per_byte;
      m.proofs = {{"ring", ranks, static_cast<std::size_t>(2 * (ranks - 1) * ranks)}};
      return m;
    };
  }
};

}  // namespace

TEST_CASE("elastic: 32 -> 24 ranks at step 5 of 10", "[train][elastic]") {
  FakeCluster cluster;
  const Workload w = hand::model();  // 4 parameters of 1,000,000 B: 4e6 B of state, one broadcast
  const ElasticResult r = simulate_elastic(ddp_model_state(w), 10, 32, 32, {{5, 24}}, {}, cluster.fn());
  CHECK(cluster.asked == std::vector<int>{32, 24});
  REQUIRE(r.phases.size() == 2);
  CHECK(r.phases[0].first_step == 0);
  CHECK(r.phases[0].last_step == 4);
  CHECK(r.phases[0].ranks == 32);
  CHECK(r.phases[1].first_step == 5);
  CHECK(r.phases[1].last_step == 9);
  CHECK(r.phases[1].ranks == 24);
  CHECK(r.phases[1].step.iteration == Time::from_ms(24));
  CHECK(r.phases[1].proofs.front().transfers == 1104u);  // 2 x 23 steps x 24 ranks
  REQUIRE(r.rebuilds.size() == 1);
  const ElasticRebuild& b = r.rebuilds[0];
  CHECK(b.step == 5);
  CHECK(b.from_ranks == 32);
  CHECK(b.to_ranks == 24);
  CHECK(b.rendezvous == Time::from_s(30));  // below the largest size: torchelastic's last call
  CHECK_FALSE(b.rendezvous_given);
  CHECK_FALSE(b.comm_init.has_value());
  CHECK(b.state_bytes == Bytes{4'000'000});
  CHECK(b.broadcasts == 1);
  CHECK(b.state_broadcast == Time::from_ms(4));
  CHECK(b.total == Time::from_ms(30'004));
  CHECK(r.steps_time == Time::from_ms(5 * 32 + 5 * 24));
  CHECK(r.total == Time::from_ms(280 + 30'004));
}

TEST_CASE("elastic: back at the largest size no last-call wait; given costs replace the defaults", "[train][elastic]") {
  FakeCluster cluster;
  const Workload w = hand::model();
  const ElasticResult r = simulate_elastic(ddp_model_state(w), 10, 32, 32, {{3, 24}, {7, 32}}, {}, cluster.fn());
  REQUIRE(r.rebuilds.size() == 2);
  CHECK(r.rebuilds[0].rendezvous == Time::from_s(30));
  CHECK(r.rebuilds[1].rendezvous == Time{});
  CHECK(r.steps_time == Time::from_ms(3 * 32 + 4 * 24 + 3 * 32));

  RebuildCosts given;
  given.rendezvous = Time::from_s(2);
  given.comm_init = Time::from_ms(500);
  const ElasticResult g = simulate_elastic(ddp_model_state(w), 10, 32, 32, {{3, 24}, {7, 32}}, given, cluster.fn());
  for (const auto& b : g.rebuilds) {
    CHECK(b.rendezvous_given);
    CHECK(b.total == Time::from_ms(2000 + 500 + 4));
  }
  CHECK(g.rebuild_time == Time::from_ms(2 * 2504));
}

TEST_CASE("elastic: the state goes out in DDP's 250 MiB broadcast buckets", "[train][elastic]") {
  // 600 MiB of fp32 parameters and a 4,000 B buffer: 250 + 250 + 100 MiB + 4,000 B in three broadcasts.
  nlohmann::json j = {{"name", "big"}, {"measured_on", "test"}, {"optimizer", {{"time", "1ms"}}}};
  j["parameters"].push_back({{"name", "p"}, {"numel", 600LL * 1024 * 1024 / 4}, {"dtype", "float32"}});
  j["layers"].push_back({{"name", "L"}, {"forward_time", "1ms"}, {"backward_time", "2ms"}, {"params", {"p"}}});
  j["buffers"].push_back({{"name", "b"}, {"numel", 1000}, {"dtype", "float32"}});
  const Workload w = parse_workload(j, "big");
  FakeCluster cluster;
  const ElasticResult r = simulate_elastic(ddp_model_state(w), 4, 8, 8, {{2, 4}}, {}, cluster.fn());
  const ElasticRebuild& b = r.rebuilds.at(0);
  CHECK(b.state_bytes == Bytes{600LL * 1024 * 1024 + 4000});
  CHECK(b.broadcasts == 3);
  CHECK(b.state_broadcast == Time::from_ns(600LL * 1024 * 1024 + 4000));
}

TEST_CASE("elastic inputs out of range name their field", "[train][elastic]") {
  const Workload w = hand::model();
  auto field_of = [&](int steps, const std::vector<MembershipChange>& changes) {
    FakeCluster cluster;
    try {
      (void)simulate_elastic(ddp_model_state(w), steps, 32, 32, changes, {}, cluster.fn());
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("no error");
  };
  CHECK(field_of(10, {{5, 24}}) == "no error");
  CHECK(field_of(1, {}) == "steps");
  CHECK(field_of(1'000'001, {}) == "steps");
  CHECK(field_of(10, {{0, 24}}) == "membership");          // before the first step
  CHECK(field_of(10, {{10, 24}}) == "membership");         // at or past the last step
  CHECK(field_of(10, {{5, 24}, {5, 16}}) == "membership"); // not after the previous change
  CHECK(field_of(10, {{5, 24}, {3, 16}}) == "membership");
  CHECK(field_of(10, {{5, 0}}) == "membership");           // no ranks
  CHECK(field_of(10, {{5, 33}}) == "membership");          // more than the topology has
  CHECK(field_of(10, {{5, 32}}) == "membership");          // no change
}

TEST_CASE("elastic: sharded state is re-sharded over the new ranks, the replicated part broadcast", "[train][elastic]") {
  // 24e6 B sharded, 4e6 B replicated; 32 -> 24 ranks at 1 ns per byte for every collective:
  // a 4e6 B broadcast (4 ms) and an all-to-all of each rank's new 1e6 B shard (1 ms).
  FakeCluster cluster;
  ModelState state;
  state.replicated = Bytes{4'000'000};
  state.sharded = Bytes{24'000'000};
  const ElasticResult r = simulate_elastic(state, 4, 32, 32, {{2, 24}}, {RebuildCosts{Time{}, Time{}}}, cluster.fn());
  const ElasticRebuild& b = r.rebuilds.at(0);
  CHECK(b.state_broadcast == Time::from_ms(4));
  CHECK(b.reshard_bytes == Bytes{24'000'000});
  CHECK(b.reshard_per_rank == Bytes{1'000'000});
  CHECK(b.reshard == Time::from_ms(1));
  CHECK(b.total == Time::from_ms(5));
  // HYBRID_SHARD over 8-rank nodes: each rank holds an eighth, 3e6 B.
  state.shard_group = 8;
  CHECK(simulate_elastic(state, 4, 32, 32, {{2, 24}}, {}, cluster.fn()).rebuilds.at(0).reshard == Time::from_ms(3));
}

TEST_CASE("elastic: what each strategy replicates and shards", "[train][elastic]") {
  // The hand model: 1e6 fp32 parameters (4e6 B as the workload stores them), no buffers.
  const Workload w = hand::model();
  CHECK(ddp_model_state(w).replicated == Bytes{4'000'000});
  CHECK(ddp_model_state(w).sharded == Bytes{0});
  ShardingOptions o;  // Adam mixed: 2 B parameters, 12 B optimizer state per parameter
  o.strategy = Sharding::Zero2;
  CHECK(sharded_model_state(w, o).replicated == Bytes{2'000'000});
  CHECK(sharded_model_state(w, o).sharded == Bytes{12'000'000});
  o.strategy = Sharding::FsdpFullShard;
  CHECK(sharded_model_state(w, o).replicated == Bytes{0});
  CHECK(sharded_model_state(w, o).sharded == Bytes{14'000'000});
  CHECK(sharded_model_state(w, o).shard_group == 0);
  o.strategy = Sharding::FsdpHybridShard;
  o.ranks_per_node = 8;
  CHECK(sharded_model_state(w, o).shard_group == 8);
}
