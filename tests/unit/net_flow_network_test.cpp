// Max-min fair sharing in the flow-level network model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <span>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/net/flow_network.hpp"

using namespace collsim;

namespace {
// Runs the network to completion; returns each flow's finish time in ps (index = flow id).
std::vector<std::int64_t> run_all(FlowNetwork& net, std::size_t flows) {
  std::vector<std::int64_t> finish(flows, -1);
  std::vector<FlowId> done;
  while (auto t = net.next_completion()) {
    done.clear();
    net.complete_until(*t, done);
    for (FlowId f : done) finish[f] = t->ps;
  }
  return finish;
}
}  // namespace

TEST_CASE("two flows into one host's link share it, then the survivor speeds up", "[net][maxmin]") {
  // Hosts a and b send to c through a switch; each link carries B = 1e9 B/s.
  FlowNetwork net;
  const Bandwidth b{1e9};
  const LinkId a_up = net.add_link(b), b_up = net.add_link(b), c_down = net.add_link(b);
  const LinkId r1[] = {a_up, c_down};
  const LinkId r2[] = {b_up, c_down};
  const FlowId f1 = net.start_flow(Time{0}, r1, Bytes{1'000'000});
  const FlowId f2 = net.start_flow(Time{0}, r2, Bytes{2'000'000});
  // Both cross c's link: each gets B/2 = 5e8 B/s.
  CHECK(net.rate(f1) == Approx(5e8));
  CHECK(net.rate(f2) == Approx(5e8));
  const auto finish = run_all(net, 2);
  // f1: 1e6 B at 5e8 B/s = 2 ms. By then f2 has sent 1e6 B and has 1e6 B left, now at
  // the full B: 1 ms more, so 3 ms.
  CHECK(finish[f1] == 2 * Time::kPerMs);
  CHECK(finish[f2] == 3 * Time::kPerMs);
}

TEST_CASE("max-min gives unconstrained flows what the bottlenecked ones leave", "[net][maxmin]") {
  // Link X (capacity 3e9) carries flows 0, 1, 2; flow 2 also crosses link Y (1e9).
  // Flow 2 is held at 1e9 by Y; flows 0 and 1 split the remaining 2e9 of X: 1e9 each...
  // no: X's fair share is 3e9/3 = 1e9 = Y's share, so all three get 1e9. Make Y 0.5e9:
  // flow 2 gets 0.5e9, flows 0 and 1 get (3e9 - 0.5e9) / 2 = 1.25e9.
  FlowNetwork net;
  const LinkId x = net.add_link(Bandwidth{3e9});
  const LinkId y = net.add_link(Bandwidth{0.5e9});
  const LinkId only_x[] = {x};
  const LinkId x_and_y[] = {x, y};
  const FlowId f0 = net.start_flow(Time{0}, only_x, Bytes{1'000'000});
  const FlowId f1 = net.start_flow(Time{0}, only_x, Bytes{1'000'000});
  const FlowId f2 = net.start_flow(Time{0}, x_and_y, Bytes{1'000'000});
  CHECK(net.rate(f0) == Approx(1.25e9));
  CHECK(net.rate(f1) == Approx(1.25e9));
  CHECK(net.rate(f2) == Approx(0.5e9));
}

TEST_CASE("a rate cap limits a flow and frees capacity for others", "[net][maxmin]") {
  // One 1e9 link, two flows, one capped at 2e8: it gets 2e8, the other 8e8.
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  const FlowId capped = net.start_flow(Time{0}, route, Bytes{200'000}, Bandwidth{2e8});
  const FlowId free_flow = net.start_flow(Time{0}, route, Bytes{800'000});
  CHECK(net.rate(capped) == Approx(2e8));
  CHECK(net.rate(free_flow) == Approx(8e8));
  const auto finish = run_all(net, 2);
  // Both finish at 1 ms: 2e5 B / 2e8 B/s and 8e5 B / 8e8 B/s.
  CHECK(finish[capped] == Time::kPerMs);
  CHECK(finish[free_flow] == Time::kPerMs);
}

TEST_CASE("flows on disjoint links do not interact", "[net][maxmin]") {
  FlowNetwork net;
  const LinkId a = net.add_link(Bandwidth{1e9}), b = net.add_link(Bandwidth{2e9});
  const LinkId ra[] = {a};
  const LinkId rb[] = {b};
  net.start_flow(Time{0}, ra, Bytes{1'000'000});
  net.start_flow(Time{0}, rb, Bytes{1'000'000});
  const auto finish = run_all(net, 2);
  CHECK(finish[0] == Time::kPerMs);      // 1e6 / 1e9
  CHECK(finish[1] == Time::kPerMs / 2);  // 1e6 / 2e9
}

TEST_CASE("a flow started later joins an existing one mid-way", "[net][maxmin]") {
  // Flow 0 (3e6 B) alone on a 1e9 link from t=0; flow 1 (1e6 B) joins at t=1 ms.
  // At 1 ms flow 0 has 2e6 B left; both then get 5e8: flow 1 ends at 1 + 2 = 3 ms,
  // flow 0 has sent another 1e6 B by then (1e6 left) and ends at 3 + 1 = 4 ms.
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  net.start_flow(Time{0}, route, Bytes{3'000'000});
  std::vector<FlowId> done;
  REQUIRE(net.next_completion()->ps == 3 * Time::kPerMs);
  net.start_flow(Time::from_ms(1), route, Bytes{1'000'000});
  std::vector<std::int64_t> finish(2, -1);
  while (auto t = net.next_completion()) {
    done.clear();
    net.complete_until(*t, done);
    for (FlowId f : done) finish[f] = t->ps;
  }
  CHECK(finish[1] == 3 * Time::kPerMs);
  CHECK(finish[0] == 4 * Time::kPerMs);
}

TEST_CASE("zero-byte flows complete immediately", "[net]") {
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  net.start_flow(Time::from_us(5), route, Bytes{0});
  CHECK(net.next_completion()->ps == Time::from_us(5).ps);
}

TEST_CASE("a link degraded mid-flow slows the flow from then on", "[net][events]") {
  // 1e9 B at 1e9 B/s; at 0.5 s the link drops to 0.5e9 B/s: the last 0.5e9 B take 1 s.
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  (void)net.start_flow(Time{}, route, Bytes{1'000'000'000});
  std::vector<FlowId> done;
  net.complete_until(Time::from_ms(500), done);
  CHECK(done.empty());
  net.set_capacity(l, Bandwidth{0.5e9});
  CHECK(net.next_completion() == Time::from_ms(1500));
  CHECK_THROWS_AS(net.set_capacity(l, Bandwidth{0}), InternalError);
}

TEST_CASE("a rerouted flow keeps the bytes it sent and leaves its old links to others", "[net][events]") {
  // Flows f (on a) and g (on a): 0.5e9 B/s each. At 0.25 s f moves to b (2e9 B/s) with
  // 1e9 - 0.125e9 = 0.875e9 B left: it ends 0.4375 s later; g, alone on a, gets 1e9 B/s.
  FlowNetwork net;
  const LinkId a = net.add_link(Bandwidth{1e9}), b = net.add_link(Bandwidth{2e9});
  const LinkId on_a[] = {a};
  const LinkId on_b[] = {b};
  const FlowId f = net.start_flow(Time{}, on_a, Bytes{1'000'000'000});
  const FlowId g = net.start_flow(Time{}, on_a, Bytes{1'000'000'000});
  std::vector<FlowId> done;
  net.complete_until(Time::from_ms(250), done);
  CHECK(net.flows_on(a) == std::vector<FlowId>{f, g});
  net.reroute(f, on_b);
  CHECK(net.flows_on(a) == std::vector<FlowId>{g});
  CHECK(net.rate(f) == 2e9);
  CHECK(net.rate(g) == 1e9);
  const auto finish = run_all(net, 2);
  CHECK(finish[f] == Time::from_us(250'000 + 437'500).ps);
  // g: 0.875e9 B left at 0.25 s, at 1e9 B/s: 0.875 s more.
  CHECK(finish[g] == Time::from_us(250'000 + 875'000).ps);
}

TEST_CASE("thousands of rate changes on one link: the finish-time heap stays bounded and exact", "[net][maxmin]") {
  // 3000 flows of 1 MB join one 1e9 B/s link 1 us apart; every arrival changes every rate,
  // leaving superseded heap entries behind (millions of them without compaction). The link
  // never idles once busy, so the last flow ends when all 3e9 bytes have crossed it:
  // 3 s after the first start (the arrivals come faster than any flow can finish).
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  constexpr int kFlows = 3000;
  std::vector<FlowId> ids;
  for (int i = 0; i < kFlows; ++i) {
    ids.push_back(net.start_flow(Time::from_us(i), route, Bytes{1'000'000}));
    REQUIRE(net.next_completion().has_value());  // solves the rates now
  }
  const auto finish = run_all(net, kFlows);
  std::int64_t last = 0;
  for (FlowId f : ids) {
    REQUIRE(finish[f] > 0);
    last = std::max(last, finish[f]);
  }
  CHECK(std::abs(last - 3 * Time::kPerS) <= kFlows);  // 1 ps of rounding per flow at most
  // Equal shares from the moment the last one joins: flows that joined later finish later.
  CHECK(finish[ids.front()] < finish[ids.back()]);
}

TEST_CASE("capped flows on a loose link run at their caps until it turns tight, and again after", "[net][maxmin]") {
  // One 1e9 B/s link; flows capped at 3e8. Two fit (6e8 <= 1e9): each runs at its cap.
  // Two more make the caps sum to 1.2e9 > 1e9: the link binds, each gets 2.5e8. When the
  // first two finish the link is loose again and the rest are back at 3e8.
  //   flows 0, 1: 3e5 B at 3e8 from 0 until 0.5 ms (1.5e5 B sent), then 2.5e8: 1.5e5 B
  //     more takes 0.6 ms, so they end at 1.1 ms;
  //   flows 2, 3: 6e5 B from 0.5 ms at 2.5e8 until 1.1 ms (1.5e5 B sent), then 4.5e5 B at
  //     3e8 = 1.5 ms: they end at 2.6 ms.
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  const Bandwidth cap{3e8};
  const FlowId f0 = net.start_flow(Time{0}, route, Bytes{300'000}, cap);
  const FlowId f1 = net.start_flow(Time{0}, route, Bytes{300'000}, cap);
  CHECK(net.rate(f0) == 3e8);
  CHECK(net.rate(f1) == 3e8);
  const auto half_ms = Time::from_us(500);
  const FlowId f2 = net.start_flow(half_ms, route, Bytes{600'000}, cap);
  const FlowId f3 = net.start_flow(half_ms, route, Bytes{600'000}, cap);
  CHECK(net.rate(f0) == Approx(2.5e8));
  CHECK(net.rate(f3) == Approx(2.5e8));
  const auto finish = run_all(net, 4);
  CHECK(finish[f0] == Time::from_us(1100).ps);
  CHECK(finish[f1] == Time::from_us(1100).ps);
  CHECK(finish[f2] == Time::from_us(2600).ps);
  CHECK(finish[f3] == Time::from_us(2600).ps);
}

TEST_CASE("a loose link does not join two bottlenecks into one share", "[net][maxmin]") {
  // Links A and C (1e9 each) are tight; B (1e10) is loose: flows capped at 8e8 cross it.
  //   flows 0, 1 on A; flow 2 on A and B; flow 3 on B and C; flow 4 on C.
  // A: three flows, 1e9 / 3 each. C: two flows, 5e8 each. B carries 2 flows of at most
  // 8e8 and never binds, so flow 2's share on A does not depend on C and the other way round.
  FlowNetwork net;
  const LinkId a = net.add_link(Bandwidth{1e9}), b = net.add_link(Bandwidth{1e10}), c = net.add_link(Bandwidth{1e9});
  const LinkId ra[] = {a}, rab[] = {a, b}, rbc[] = {b, c}, rc[] = {c};
  const Bandwidth cap{8e8};
  const FlowId f0 = net.start_flow(Time{0}, ra, Bytes{1'000'000}, cap);
  const FlowId f1 = net.start_flow(Time{0}, ra, Bytes{1'000'000}, cap);
  const FlowId f2 = net.start_flow(Time{0}, rab, Bytes{1'000'000}, cap);
  const FlowId f3 = net.start_flow(Time{0}, rbc, Bytes{1'000'000}, cap);
  const FlowId f4 = net.start_flow(Time{0}, rc, Bytes{1'000'000}, cap);
  CHECK(net.rate(f0) == Approx(1e9 / 3));
  CHECK(net.rate(f1) == Approx(1e9 / 3));
  CHECK(net.rate(f2) == Approx(1e9 / 3));
  CHECK(net.rate(f3) == Approx(5e8));
  CHECK(net.rate(f4) == Approx(5e8));
  // C's flows end at 2 ms; A's three flows all end together at 3 ms.
  const auto finish = run_all(net, 5);
  CHECK(finish[f3] == 2 * Time::kPerMs);
  CHECK(finish[f4] == 2 * Time::kPerMs);
  CHECK(finish[f0] == 3 * Time::kPerMs);
  CHECK(finish[f2] == 3 * Time::kPerMs);
}

TEST_CASE("flows ending at the same instant come out in id order whatever their start order", "[net]") {
  // Four flows on separate links, started in the order 3, 1, 2, 0 of their ids' final
  // values, all ending at 1 ms: complete_until lists them by id.
  FlowNetwork net;
  std::vector<LinkId> links;
  for (int i = 0; i < 4; ++i) links.push_back(net.add_link(Bandwidth{1e9}));
  std::vector<FlowId> ids;
  // Later starts carry fewer bytes, so all end at 1 ms.
  for (int i = 0; i < 4; ++i) {
    const std::span<const LinkId> route(&links[static_cast<std::size_t>(3 - i)], 1);
    ids.push_back(net.start_flow(Time::from_us(100 * i), route, Bytes{1'000'000 - 100'000 * i}));
    REQUIRE(net.next_completion()->ps == Time::kPerMs);
  }
  std::vector<FlowId> done;
  net.complete_until(Time{Time::kPerMs}, done);
  REQUIRE(done.size() == 4);
  CHECK(std::is_sorted(done.begin(), done.end()));
  CHECK(!net.next_completion());
}

TEST_CASE("a network shifted in time finishes its flows exactly that much later", "[net][maxmin]") {
  // Two flows sharing a link, stopped after the first completion, then moved 7 ms later:
  // the survivor's finish moves by exactly 7 ms, and its state (bytes, rate) is untouched.
  auto build = [](FlowNetwork& net, std::vector<LinkId>& r1, std::vector<LinkId>& r2) {
    const Bandwidth b{1e9};
    const LinkId a = net.add_link(b), c = net.add_link(b), d = net.add_link(b);
    r1 = {a, c};
    r2 = {d, c};
    net.start_flow(Time{0}, r1, Bytes{1'000'000});
    net.start_flow(Time{0}, r2, Bytes{3'000'001});
  };
  FlowNetwork plain, moved;
  std::vector<LinkId> p1, p2, m1, m2;
  build(plain, p1, p2);
  build(moved, m1, m2);
  std::vector<FlowId> done;
  for (FlowNetwork* net : {&plain, &moved}) {
    const auto t = net->next_completion();
    REQUIRE(t);
    net->complete_until(*t, done);
  }
  REQUIRE(moved.next_completion());  // rates solved before the shift
  std::vector<FlowNetwork::FlowView> before;
  moved.for_each_active([&](FlowId, const FlowNetwork::FlowView& v) { before.push_back(v); });
  moved.shift(Time::from_ms(7));
  std::vector<FlowNetwork::FlowView> after;
  moved.for_each_active([&](FlowId, const FlowNetwork::FlowView& v) { after.push_back(v); });
  REQUIRE(before.size() == 1);
  REQUIRE(after.size() == 1);
  CHECK(after[0].remaining == before[0].remaining);
  CHECK(after[0].rate == before[0].rate);
  CHECK(after[0].finish == before[0].finish + Time::from_ms(7));
  CHECK(moved.now() == plain.now() + Time::from_ms(7));
  CHECK(*moved.next_completion() == *plain.next_completion() + Time::from_ms(7));
}

TEST_CASE("flows that end together leave a shared link in one pass, the rest in join order", "[net][maxmin]") {
  // Five flows into one 1e9 B/s link, 1e6 B each but the 2nd and 4th 2e6 B: at 5 ms the
  // 1st, 3rd and 5th end together (a batch from the front, middle and back of the list);
  // the 2nd and 4th stay, in the order they joined, and share the link for 2 ms more.
  FlowNetwork net;
  const LinkId l = net.add_link(Bandwidth{1e9});
  const LinkId route[] = {l};
  std::vector<FlowId> f;
  for (std::int64_t bytes : {1'000'000, 2'000'000, 1'000'000, 2'000'000, 1'000'000}) {
    f.push_back(net.start_flow(Time{}, route, Bytes{bytes}));
  }
  std::vector<FlowId> done;
  net.complete_until(*net.next_completion(), done);
  CHECK(done == std::vector<FlowId>{f[0], f[2], f[4]});
  CHECK(net.flows_on(l) == std::vector<FlowId>{f[1], f[3]});
  CHECK(net.rate(f[1]) == Approx(5e8));
  const auto finish = run_all(net, 5);
  CHECK(finish[f[1]] == 7 * Time::kPerMs);
  CHECK(finish[f[3]] == 7 * Time::kPerMs);
}
