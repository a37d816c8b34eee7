// The schedule player's protocol costs: switch legs, wire inflation, per-flow caps,
// protocol step latency, pipelined slices and joins, on a star (each host one duplex
// link of B = 100 Gbps and L = 1 us to the switch).
#include <catch2/catch.hpp>

#include "sim/coll/schedule_player.hpp"
#include "sim/topo/generators.hpp"

namespace collsim {
namespace {

constexpr std::int64_t kS = 12'500'000;  // 1 ms at 12.5 GB/s
const Time kSOverB = Time::from_ms(1);
const Time kL = Time::from_us(1);

struct Star {
  Topology topo = make_star(StarSpec{4, Bandwidth::gbps(100), Time::from_us(1)});
  LinkGraph graph{topo};
};

Schedule two_into_one(TransferLeg leg) {
  Schedule s(Collective{CollectiveOp::AllReduce, 4, 0, Bytes{kS}}, "test");
  const int c = s.add_chunk(ChunkSpec{Bytes{kS}});
  s.add(Transfer{0, 1, Bytes{kS}, c, TransferKind::Reduce, leg}, {});
  s.add(Transfer{2, 1, Bytes{kS}, c, TransferKind::Reduce, leg}, {});
  return s;
}

TEST_CASE("end-to-end flows into one host share its down-link", "[coll][player]") {
  Star st;
  // Both cross host 1's down-link: 2 x S at B, after 2L of latency.
  REQUIRE(play_schedule(two_into_one(TransferLeg::EndToEnd), st.graph).duration == kL * 2 + kSOverB * 2);
}

TEST_CASE("to-switch legs load only the senders' up-links", "[coll][player]") {
  Star st;
  // Each leg is one link (sender -> switch): L + S/B, in parallel.
  REQUIRE(play_schedule(two_into_one(TransferLeg::ToSwitch), st.graph).duration == kL + kSOverB);
  // A from-switch leg is the last link only, here host 1's down-link, which both
  // share: L + 2 S/B.
  REQUIRE(play_schedule(two_into_one(TransferLeg::FromSwitch), st.graph).duration == kL + kSOverB * 2);
}

Schedule one_transfer(bool pipelined) {
  Schedule s(Collective{CollectiveOp::AllReduce, 4, 0, Bytes{kS}}, "test");
  const int c = s.add_chunk(ChunkSpec{Bytes{kS}});
  s.add(Transfer{0, 1, Bytes{kS}, c, TransferKind::Copy, TransferLeg::EndToEnd, pipelined}, {});
  return s;
}

TEST_CASE("wire inflation and flow caps stretch the bandwidth term", "[coll][player]") {
  Star st;
  PlayOptions o;
  o.cost.wire_inflation = 2.0;  // LL: half of every line is flags
  REQUIRE(play_schedule(one_transfer(false), st.graph, o).duration == kL * 2 + kSOverB * 2);
  PlayOptions capped;
  capped.cost.flow_cap = Bandwidth::gbps(25);  // a quarter of the link
  REQUIRE(play_schedule(one_transfer(false), st.graph, capped).duration == kL * 2 + kSOverB * 4);
}

TEST_CASE("protocol step latency replaces the route's; pipelined slices pay none", "[coll][player]") {
  Star st;
  PlayOptions o;
  o.cost.protocol_latency = true;
  o.cost.step_latency[static_cast<std::size_t>(LinkClass::Net)] = Time::from_us(14);  // ethernet star: NET
  o.cost.step_latency[static_cast<std::size_t>(LinkClass::NvLink)] = Time::from_us(99);
  REQUIRE(play_schedule(one_transfer(false), st.graph, o).duration == Time::from_us(14) + kSOverB);
  REQUIRE(play_schedule(one_transfer(true), st.graph, o).duration == kSOverB);
  REQUIRE(play_schedule(one_transfer(true), st.graph).duration == kSOverB);  // ideal too
}

TEST_CASE("a join finishes with its last dependency and costs nothing", "[coll][player]") {
  Star st;
  Schedule s(Collective{CollectiveOp::AllReduce, 4, 0, Bytes{kS}}, "test");
  const int c = s.add_chunk(ChunkSpec{Bytes{kS}});
  const TransferId a = s.add(Transfer{0, 1, Bytes{kS}, c, TransferKind::Reduce}, {});
  const TransferId b = s.add(Transfer{2, 3, Bytes{kS}, c, TransferKind::Reduce}, {});
  const TransferId j = s.add_join(std::vector<TransferId>{a, b});
  s.add(Transfer{1, 3, Bytes{kS}, c, TransferKind::Copy}, {j});
  // Two independent transfers (2L + S/B each, in parallel), then the third: 2 x (2L + S/B).
  REQUIRE(play_schedule(s, st.graph).duration == (kL * 2 + kSOverB) * 2);
}

TEST_CASE("a late rank: a transfer starts once both its ranks have entered", "[coll][player]") {
  Star st;
  // 0 -> 1 then 1 -> 2, rank 2 entering at 5 ms. The first transfer runs at once (2L +
  // S/B, ending at 1.002 ms); the second waits for rank 2 and ends at 5 ms + 2L + S/B.
  Schedule s(Collective{CollectiveOp::AllReduce, 4, 0, Bytes{kS}}, "test");
  const int c = s.add_chunk(ChunkSpec{Bytes{kS}});
  const TransferId a = s.add(Transfer{0, 1, Bytes{kS}, c, TransferKind::Reduce}, {});
  s.add(Transfer{1, 2, Bytes{kS}, c, TransferKind::Copy}, {a});
  const std::vector<Time> arrival{Time{}, Time{}, Time::from_ms(5), Time{}};
  PlayOptions o;
  o.rank_arrival = arrival;
  o.record_timings = true;
  const PlayResult r = play_schedule(s, st.graph, o);
  CHECK(r.timings[0].end == kL * 2 + kSOverB);
  CHECK(r.duration == Time::from_ms(5) + kL * 2 + kSOverB);
  // A receiver that is late holds its sender too: rank 1 entering at 5 ms delays 0 -> 1,
  // and 1 -> 2 follows it: 5 ms + 2 x (2L + S/B).
  const std::vector<Time> late_receiver{Time{}, Time::from_ms(5), Time{}, Time{}};
  o.rank_arrival = late_receiver;
  CHECK(play_schedule(s, st.graph, o).duration == Time::from_ms(5) + (kL * 2 + kSOverB) * 2);
  // On time: 2 x (2L + S/B).
  CHECK(play_schedule(s, st.graph).duration == (kL * 2 + kSOverB) * 2);
}

}  // namespace
}  // namespace collsim
