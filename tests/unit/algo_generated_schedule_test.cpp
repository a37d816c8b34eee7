// The ring's and the tree's schedules computed on demand against the built ones: the same
// DAG, id for id, and the same replay to the picosecond.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/algo/ring.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/link_graph.hpp"

using namespace collsim;

namespace {

// Every field, dependency and dependent of `g` equals the built schedule's.
void require_same_dag(const GeneratedSchedule& g, const Schedule& s) {
  REQUIRE(g.size() == s.size());
  std::vector<std::vector<std::uint64_t>> dependents(s.size());
  std::vector<std::uint64_t> roots;
  for (TransferId t = 0; t < s.size(); ++t) {
    for (TransferId d : s.deps(t)) dependents[d].push_back(t);
    if (s.deps(t).empty()) roots.push_back(t);
  }
  REQUIRE(g.roots() == roots);
  // A route slot stands for one (src, dst) pair.
  std::vector<std::pair<int, int>> pair_of_slot(g.route_slots(), {-1, -1});
  for (TransferId t = 0; t < s.size(); ++t) {
    std::uint64_t slot = 0;
    const Transfer a = g.transfer(t, slot), b = s.transfer(t);
    REQUIRE(slot < g.route_slots());
    if (pair_of_slot[slot].first < 0) pair_of_slot[slot] = {a.src, a.dst};
    REQUIRE(pair_of_slot[slot] == std::pair<int, int>{a.src, a.dst});
    INFO("transfer " << t);
    REQUIRE(a.src == b.src);
    REQUIRE(a.dst == b.dst);
    REQUIRE(a.bytes == b.bytes);
    REQUIRE(a.chunk == b.chunk);
    REQUIRE(a.kind == b.kind);
    REQUIRE(a.leg == b.leg);
    REQUIRE(a.pipelined == b.pipelined);
    REQUIRE(a.channel == b.channel);
    REQUIRE(g.indegree(t) == s.deps(t).size());
    GeneratedSchedule::Dependents out{};
    const std::size_t m = g.dependents(t, out);
    REQUIRE(m == dependents[t].size());
    for (std::size_t i = 0; i < m; ++i) {
      REQUIRE(out[i].id == dependents[t][i]);
      REQUIRE(out[i].indegree == s.deps(static_cast<TransferId>(out[i].id)).size());
    }
  }
}

// Replaying `algo`'s generated schedule gives the built one's times, transfer by transfer,
// with every flow capped at `cap`.
void require_same_replay(const std::string& algo, const Topology& t, const Collective& c, const AlgorithmOptions& opt,
                         Bandwidth cap) {
  PlayOptions play;
  play.record_timings = true;
  play.cost.flow_cap = cap;
  LinkGraph g1(t), g2(t);
  const PlayResult stored = play_schedule(build_schedule(algo, c, opt), g1, play);
  const PlayResult generated = play_generated(*generated_schedule(algo, c, opt), g2, play);
  REQUIRE(generated.duration == stored.duration);
  REQUIRE(generated.flows == stored.flows);
  REQUIRE(generated.timings.size() == stored.timings.size());
  for (std::size_t i = 0; i < stored.timings.size(); ++i) {
    REQUIRE(generated.timings[i].start == stored.timings[i].start);
    REQUIRE(generated.timings[i].end == stored.timings[i].end);
  }
}

}  // namespace

TEST_CASE("the generated ring is the built ring, id for id", "[algo][generated]") {
  int cases = 0;
  for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    for (int n : {1, 2, 3, 5, 8}) {
      for (std::int64_t size : {1LL, 7LL, 1000LL, 1LL << 20}) {
        for (int channels : {1, 3}) {
          for (std::int64_t slice : {0LL, 100LL}) {
            AlgorithmOptions opt;
            opt.channels = channels;
            opt.slice_bytes = Bytes{slice};
            opt.max_slices = 4;
            if (channels == 3 && n > 2) {  // NCCL's channel graphs: each channel its own ring
              std::vector<int> a(static_cast<std::size_t>(n)), b;
              std::iota(a.begin(), a.end(), 0);
              b.assign(a.rbegin(), a.rend());
              std::rotate(a.begin(), a.begin() + 1, a.end());
              opt.channel_orders = {a, b};
            }
            const Collective c{op, n, 0, Bytes{size}};
            INFO(fmt::format("{} n={} size={} channels={} slice={}", to_string(op), n, size, channels, slice));
            const auto g = generated_schedule("ring", c, opt);
            REQUIRE(g);
            require_same_dag(*g, build_schedule("ring", c, opt));
            ++cases;
          }
        }
      }
    }
  }
  CHECK(cases == 240);
  // The chains (broadcast, reduce) and algorithms without the form are built.
  CHECK_FALSE(generated_schedule("ring", Collective{CollectiveOp::Broadcast, 4, 0, Bytes{64}}, {}));
  CHECK_FALSE(generated_schedule("ps", Collective{CollectiveOp::AllReduce, 4, 0, Bytes{64}}, {}));
  // Options the builder rejects are rejected the same way.
  AlgorithmOptions bad;
  bad.ring_order = {0, 0, 1};
  CHECK_THROWS_AS(generated_schedule("ring", Collective{CollectiveOp::AllReduce, 3, 0, Bytes{64}}, bad),
                  std::invalid_argument);
}

TEST_CASE("the generated tree is the built tree, id for id", "[algo][generated]") {
  int cases = 0;
  for (int n : {1, 2, 3, 5, 8, 12}) {
    for (int per_host : {1, 2, 4}) {
      for (std::int64_t size : {1LL, 1000LL, 1LL << 20}) {
        for (int channels : {1, 2, 4}) {
          for (std::int64_t slice : {0LL, 100LL}) {
            AlgorithmOptions opt;
            opt.channels = channels;
            opt.slice_bytes = Bytes{slice};
            opt.max_slices = 4;
            for (int r = 0; r < n; ++r) opt.host_of_rank.push_back(r / per_host);
            if (channels == 4 && n > 2) {  // channel orders: each host's chain in another order
              std::vector<int> a(static_cast<std::size_t>(n)), b;
              std::iota(a.begin(), a.end(), 0);
              b.assign(a.rbegin(), a.rend());
              opt.channel_orders = {a, b};
            }
            const Collective c{CollectiveOp::AllReduce, n, 0, Bytes{size}};
            INFO(fmt::format("n={} per_host={} size={} channels={} slice={}", n, per_host, size, channels, slice));
            const auto g = generated_schedule("tree", c, opt);
            REQUIRE(g);
            require_same_dag(*g, build_schedule("tree", c, opt));
            ++cases;
          }
        }
      }
    }
  }
  CHECK(cases == 324);
}

TEST_CASE("replaying the generated tree equals replaying the built one", "[algo][generated][engine]") {
  // Ranks in hosts of four (chains inside, trees across) on one switch: a rank's flows up
  // to its parent and down to its children share its link, at caps that do not all fit.
  for (int n : {8, 16}) {
    const Topology t = make_star(StarSpec{n, Bandwidth::gbps(100), Time::from_us(1)});
    for (std::int64_t size : {999LL, 16LL << 20}) {
      AlgorithmOptions opt;
      opt.channels = 2;
      opt.slice_bytes = Bytes{1 << 20};
      for (int r = 0; r < n; ++r) opt.host_of_rank.push_back(r / 4);
      const Collective c{CollectiveOp::AllReduce, n, 0, Bytes{size}};
      INFO(fmt::format("n={} size={}", n, size));
      require_same_replay("tree", t, c, opt, Bandwidth::gb_per_s(8));
    }
  }
}

TEST_CASE("a tree replay past the work limit refuses up front with the figure", "[algo][generated]") {
  // 8 channels x 64 slices x 2 (N - 1) = 134,216,704 transfers over 2^17 ranks: 1.8e13.
  AlgorithmOptions opt;
  opt.channels = 8;
  opt.slice_bytes = Bytes{1 << 20};
  const Collective big{CollectiveOp::AllReduce, 1 << 17, 0, Bytes{1LL << 30}};
  try {
    (void)generated_schedule("tree", big, opt);
    FAIL("expected a LimitError");
  } catch (const LimitError& e) {
    CHECK_THAT(e.what(), Catch::Contains("134216704 transfers") && Catch::Contains("COLLSIM_MAX_REPLAY_WORK"));
  }
  // One slice per channel: 2,097,136 transfers, 2.7e11, runs.
  const Collective small{CollectiveOp::AllReduce, 1 << 17, 0, Bytes{1 << 20}};
  const auto g = generated_schedule("tree", small, opt);
  REQUIRE(g);
  CHECK(g->size() == 2'097'136ULL);
}

TEST_CASE("replaying the generated ring equals replaying the built one", "[algo][generated][engine]") {
  for (int n : {2, 6, 33}) {
    const Topology t = make_star(StarSpec{n, Bandwidth::gbps(100), Time::from_us(1)});
    for (std::int64_t size : {999LL, 64LL << 20}) {
      AlgorithmOptions opt;
      opt.channels = 2;
      opt.slice_bytes = Bytes{1 << 20};
      const Collective c{CollectiveOp::AllReduce, n, 0, Bytes{size}};
      INFO(fmt::format("n={} size={}", n, size));
      require_same_replay("ring", t, c, opt, Bandwidth::gb_per_s(4));  // two channels' flows share each link
    }
  }
}

TEST_CASE("a generated replay past the counters' limit refuses with the figure", "[algo][generated]") {
  // 2^17 ranks: 2 (N - 1) N = 34,359,476,224 transfers, past 2^32.
  const Collective c{CollectiveOp::AllReduce, 1 << 17, 0, Bytes{1 << 30}};
  const auto g = generated_schedule("ring", c, {});
  REQUIRE(g);
  CHECK(g->size() == 34'359'476'224ULL);
  const Topology t = make_star(StarSpec{1 << 17, Bandwidth::gbps(100), Time::from_us(1)});
  LinkGraph graph(t);
  try {
    (void)play_generated(*g, graph, {});
    FAIL("expected a LimitError");
  } catch (const LimitError& e) {
    CHECK_THAT(e.what(), Catch::Contains("34359476224 transfers"));
  }
}
