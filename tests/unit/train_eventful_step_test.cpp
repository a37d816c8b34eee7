// A DDP step whose collectives cost what they cost where they start (sim/train/eventful_step),
// on the hand model of train_ddp_timeline_test: 4 layers of 1 ms forward and 2 ms backward,
// buckets {p3} (1e6 B), {p2, p1} (2e6 B), {p0} (1e6 B), collectives at 1 ns per byte.
#include <catch2/catch.hpp>

#include "sim/train/eventful_step.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

// Plays the hand model's step until it settles, with one event at 10 ms after which a
// collective costs `factor` times its healthy time.
std::pair<DdpResult, StepEvents> play(std::int64_t factor) {
  LinkScenario events;
  events.events.push_back(LinkEvent{us(10000), us(10000), LinkAction::Restore, {}, Bandwidth{}, "", ""});
  EventfulStep step(std::make_shared<const LinkScenario>(std::move(events)));
  const CollectiveCostFn cost = [&](CollectiveOp op, Bytes b) {
    const Time healthy = hand::one_ns_per_byte(op, b);
    return step.cost(healthy, [&](const auto&) { return healthy * factor; });
  };
  DdpResult r;
  do {
    r = simulate_ddp(hand::model(), hand::device(), cost, hand::options());
  } while (!step.settled(r.program, r.timeline));
  return {r, step.summary(r.program, r.timeline, us(14010))};
}

}  // namespace

TEST_CASE("link events in a step: each collective priced at its own start, until the starts settle", "[train][events]") {
  // Healthy (train_ddp_timeline_test): b0 all-reduces 6.002-7.002 ms, b1 10.006-12.006, b2
  // 12.008-13.008; the step ends at 14.010 ms. Every collective that meets the event at
  // 10 ms takes twice its time. b1 starts at 10.006: 4 ms, to 14.006; b2 is ready at 12.008 but the
  // stream is busy: 14.006-16.006 (2 ms); its copy-out 2 us, the optimizer 1 ms: 17.008 ms.
  // Play 1 prices at the healthy starts (b2 at 12.008), play 2 moves b2 to 14.006 (the same
  // 2 ms), play 3 repeats play 2's starts: settled.
  const auto [r, e] = play(2);
  CHECK(r.iteration == us(17008));
  REQUIRE(r.buckets.size() == 3);
  CHECK(r.buckets[1].start == us(10006));
  CHECK(r.buckets[1].end == us(14006));
  CHECK(r.buckets[2].start == us(14006));
  CHECK(r.buckets[2].end == us(16006));
  CHECK(e.plays == 3);
  CHECK(e.collectives == 3);
  REQUIRE(e.changed.size() == 2);
  CHECK(e.changed[0].healthy == us(2000));
  CHECK(e.changed[0].during == us(4000));
  CHECK(e.changed[1].start == us(14006));
  CHECK(e.healthy_iteration == us(14010));
}

TEST_CASE("link events that change nothing leave the step as it was, in two plays", "[train][events]") {
  const auto [r, e] = play(1);
  CHECK(r.iteration == us(14010));
  CHECK(e.plays == 2);
  CHECK(e.changed.empty());
}

}  // namespace collsim
