// The fast path (one solved step per phase) against the full flow-level replay.
#include <map>
#include <optional>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/phased_player.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/rail_hosts.hpp"

using namespace collsim;

namespace {

using test::rail_hosts;

std::vector<int> host_labels(const Topology& t) {
  std::vector<int> out;
  for (NodeIndex r : t.ranks) out.push_back(static_cast<int>(*t.nodes[r].host));
  return out;
}

double relative_gap(Time a, Time b) { return std::abs(a.seconds() - b.seconds()) / b.seconds(); }

}  // namespace

TEST_CASE("fast path equals the full replay for the ring on the star", "[engine][fastpath]") {
  for (int n : {2, 7, 64, 256}) {
    const Topology t = make_star(StarSpec{n, Bandwidth::gbps(100), Time::from_us(1)});
    LinkGraph g(t);
    const Collective c{CollectiveOp::AllReduce, n, 0, Bytes{64 << 20}};
    const auto phased = phased_schedule("ring", c, {});
    REQUIRE(phased);
    // 2(N-1) steps of N transfers, as many as the full schedule.
    CHECK(phased->transfers() == static_cast<std::uint64_t>(2 * (n - 1) * n));
    const PhasedResult fast = play_phased(*phased, g);
    const PlayResult full = play_schedule(build_schedule("ring", c, {}), g);
    INFO("N = " << n << " fast " << fast.duration.ps << " full " << full.duration.ps);
    CHECK(relative_gap(fast.duration, full.duration) <= 1e-6);
  }
}

TEST_CASE("fast path equals the full replay for the hierarchical ring on hosts with rails", "[engine][fastpath]") {
  // 1024 GPUs = 128 hosts x 8 is the issue's size; the full replay there has ~2.4M
  // transfers, so the test runs 16 x 8 and 128 x 8 (the larger one tagged [large]).
  for (int hosts : {2, 3, 16}) {
    const Topology t = rail_hosts(hosts, 8);
    LinkGraph g(t);
    AlgorithmOptions opt;
    opt.host_of_rank = host_labels(t);
    const Collective c{CollectiveOp::AllReduce, t.rank_count(), 0, Bytes{1 << 30}};
    const auto phased = phased_schedule("hier_ring", c, opt);
    REQUIRE(phased);
    const PhasedResult fast = play_phased(*phased, g);
    const PlayResult full = play_schedule(build_schedule("hier_ring", c, opt), g);
    INFO(hosts << " hosts: fast " << fast.duration.ps << " full " << full.duration.ps);
    CHECK(relative_gap(fast.duration, full.duration) <= 1e-3);
  }
}

TEST_CASE("a slow link: the max-plus recurrence equals the full replay", "[engine][fastpath]") {
  // A ring over 6 hosts where host 3's link runs at a quarter of the rate: its flows end
  // later than the others', so steps drift out of lock-step. No link carries two rank
  // pairs, so each pair's step time is fixed and the recurrence is exact.
  Topology t = make_star(StarSpec{6, Bandwidth::gbps(100), Time::from_us(1)});
  for (auto& l : t.links) {
    if (t.nodes[l.from].id == "host3" || t.nodes[l.to].id == "host3") l.bandwidth = Bandwidth::gbps(25);
  }
  LinkGraph g(t);
  const Collective c{CollectiveOp::AllReduce, 6, 0, Bytes{6 << 20}};
  const auto phased = phased_schedule("ring", c, {});
  REQUIRE(phased);
  const PhasedResult fast = play_phased(*phased, g);
  CHECK(fast.phases_replayed == 0);
  const PlayResult full = play_schedule(build_schedule("ring", c, {}), g);
  // The slowest pair paces the ring: host 3's 1 MiB chunk at 25 Gb/s = 335.5 us a step
  // (plus 2 us latency), so at least 10 steps of it; the replay agrees to the picosecond
  // up to the byte remainder.
  CHECK(full.duration.seconds() >= 10 * ((1 << 20) / 3.125e9 + 2e-6) * 0.999);
  CHECK(relative_gap(fast.duration, full.duration) <= 1e-6);
}

namespace {

// `hosts` x 8 GPUs on a RoCE fat tree of 32-port leaves and 2 spines, 4:1 oversubscribed:
// rings crossing the spines are hashed onto the same spine link often enough to overload
// it (ECMP; an InfiniBand fabric routes them by destination, without collisions), so the
// inter-host phase is neither independent nor uniform.
Topology ecmp_fat_tree(int hosts = 8) {
  const std::string json = R"({"generator": {"kind": "cluster", "hosts": )" + std::to_string(hosts) +
                           R"(, "server": {"kind": "dgx_h100"},
      "fabric": {"kind": "fat_tree", "link_kind": "roce", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32,
                 "spines": 2, "oversubscription": 4}}})";
  return load_topology_json(parse_json_text(json, "fat.json"), "fat.json");
}

// A hierarchical all-reduce of `size` on that fabric, as a schedule and in phases.
struct EcmpCase {
  explicit EcmpCase(Bytes size)
      : t(ecmp_fat_tree()), g(t), opt(options(t)), c{CollectiveOp::AllReduce, t.rank_count(), 0, size},
        phased(phased_schedule("hier_ring", c, opt)) {}
  static AlgorithmOptions options(const Topology& topo) {
    AlgorithmOptions o;
    o.host_of_rank = host_labels(topo);
    return o;
  }
  Topology t;
  LinkGraph g;
  AlgorithmOptions opt;
  Collective c;
  std::optional<PhasedSchedule> phased;
};

}  // namespace

TEST_CASE("fast path equals the full replay for the ring reduce-scatter and all-gather", "[engine][fastpath]") {
  // The all-reduce's halves: N-1 steps each, on a star (every pair alone on its links) and
  // on the ECMP fat tree below with four channels on rings of their own (colliding flows:
  // the phase is replayed, streamed).
  for (CollectiveOp op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    for (int n : {2, 7, 64}) {
      const Topology t = make_star(StarSpec{n, Bandwidth::gbps(100), Time::from_us(1)});
      LinkGraph g(t);
      const Collective c{op, n, 0, Bytes{64 << 20}};
      const auto phased = phased_schedule("ring", c, {});
      REQUIRE(phased);
      CHECK(phased->transfers() == static_cast<std::uint64_t>((n - 1) * n));
      const PhasedResult fast = play_phased(*phased, g);
      const PlayResult full = play_schedule(build_schedule("ring", c, {}), g);
      INFO(to_string(op) << " N = " << n << " fast " << fast.duration.ps << " full " << full.duration.ps);
      CHECK(relative_gap(fast.duration, full.duration) <= 1e-6);
    }
  }
  const Topology fat = ecmp_fat_tree();
  LinkGraph g(fat);
  AlgorithmOptions opt;
  opt.channels = 4;
  for (int ch = 0; ch < opt.channels; ++ch) {
    std::vector<int> order(static_cast<std::size_t>(fat.rank_count()));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>((i * 8 + static_cast<std::size_t>(ch) + i / 8) % order.size());
    opt.channel_orders.push_back(order);
  }
  for (CollectiveOp op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    const Collective c{op, fat.rank_count(), 0, Bytes{16 << 20}};
    const auto phased = phased_schedule("ring", c, opt);
    REQUIRE(phased);
    const PhasedResult fast = play_phased(*phased, g);
    const PlayResult full = play_schedule(build_schedule("ring", c, opt), g);
    INFO(to_string(op) << " fat tree: fast " << fast.duration.ps << " full " << full.duration.ps << " replayed "
                       << fast.phases_replayed);
    CHECK(relative_gap(fast.duration, full.duration) <= 1e-3);
    CHECK(fast.phases_replayed == 1);  // the channels' flows collide: the contended path
  }
  // The chains have no phased form.
  CHECK_FALSE(phased_schedule("ring", Collective{CollectiveOp::Broadcast, 4, 0, Bytes{4096}}, {}));
}

TEST_CASE("fast path on a fat tree with ECMP collisions replays the colliding phase", "[engine][fastpath]") {
  // The fast path replays the colliding phase and must still equal the full replay.
  EcmpCase k(Bytes{256 << 20});
  REQUIRE(k.phased);
  const PhasedResult fast = play_phased(*k.phased, k.g);
  const PlayResult full = play_schedule(build_schedule("hier_ring", k.c, k.opt), k.g);
  INFO("fast " << fast.duration.ps << " full " << full.duration.ps << " replayed " << fast.phases_replayed);
  CHECK(relative_gap(fast.duration, full.duration) <= 1e-3);
  CHECK(fast.phases_replayed > 0);
}

namespace {

// The phase as a stored schedule, the way the fast path gated it before it streamed: step
// k+1's transfers out of a rank wait for a join of step k's transfers into and out of it.
Schedule stored_phase(const SchedulePhase& phase, const Collective& c) {
  Schedule s(c, "phase:" + phase.name);
  const std::int32_t chunk = s.add_chunk(ChunkSpec{phase.step.front().bytes});
  std::map<std::int32_t, std::vector<TransferId>> touched;
  for (std::int64_t k = 0; k < phase.repeats; ++k) {
    std::map<std::int32_t, TransferId> gate;
    for (auto& [rank, ids] : touched) gate.emplace(rank, s.add_join(ids));
    std::map<std::int32_t, std::vector<TransferId>> now;
    for (Transfer t : phase.step) {
      t.chunk = chunk;
      t.kind = TransferKind::Copy;
      const auto g = gate.find(t.src);
      const TransferId id = g == gate.end() ? s.add(t, {}) : s.add(t, {g->second});
      now[t.src].push_back(id);
      now[t.dst].push_back(id);
    }
    touched = std::move(now);
  }
  return s;
}

}  // namespace

TEST_CASE("a replayed phase, streamed, equals the same phase stored and replayed", "[engine][fastpath]") {
  // The colliding inter-host phase of the fat tree above: streamed step by step (memory of
  // the transfers in flight) it must give the picosecond of the stored replay.
  EcmpCase k(Bytes{64 << 20});
  REQUIRE(k.phased);
  int replayed = 0;
  for (const SchedulePhase& phase : k.phased->phases) {
    PhasedSchedule one{k.phased->collective, k.phased->algorithm, {phase}};
    const PhasedResult fast = play_phased(one, k.g);
    if (fast.phases_replayed == 0) continue;
    ++replayed;
    INFO(phase.name);
    CHECK(fast.duration == play_schedule(stored_phase(phase, k.c), k.g).duration);
  }
  CHECK(replayed > 0);  // ECMP does collide on this fabric
}
