// The event queue: time order, ties in insertion order, instances independent.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/event_queue.hpp"

using namespace collsim;

TEST_CASE("events fire in time order, ties in insertion order", "[core][events]") {
  EventQueue q;
  std::vector<int> order;
  q.schedule(Time{30}, [&] { order.push_back(3); });
  q.schedule(Time{10}, [&] { order.push_back(1); });
  q.schedule(Time{20}, [&] { order.push_back(20); });
  q.schedule(Time{20}, [&] { order.push_back(21); });
  q.schedule(Time{20}, [&] { order.push_back(22); });
  while (!q.empty()) q.run_next();
  CHECK(order == std::vector<int>{1, 20, 21, 22, 3});
  CHECK(q.now().ps == 30);
  CHECK(q.executed() == 5);
}

TEST_CASE("an event may schedule more events, never in the past", "[core][events]") {
  EventQueue q;
  int fired = 0;
  q.schedule(Time{5}, [&] {
    ++fired;
    q.schedule(q.now(), [&] { ++fired; });  // same time is allowed, runs after
  });
  q.run_next();
  CHECK_THROWS_AS(q.schedule(Time{1}, [] {}), InternalError);
  q.run_next();
  CHECK(fired == 2);
}

TEST_CASE("two queues are independent (no global state)", "[core][events]") {
  EventQueue a, b;
  a.schedule(Time{100}, [] {});
  b.schedule(Time{1}, [] {});
  b.run_next();
  CHECK(b.now().ps == 1);
  CHECK(a.now().ps == 0);
  CHECK(a.size() == 1);
}

TEST_CASE("time buckets drop items in place and keep the rest in order", "[core][events]") {
  TimeBuckets<int> b;
  for (int i = 0; i < 6; ++i) b.push(Time{i % 2 == 0 ? 10 : 20}, i);  // 10: 0 2 4; 20: 1 3 5
  CHECK(b.pop_front() == 0);  // a bucket half consumed
  b.erase_if([](int v) { return v == 2 || v == 1 || v == 3 || v == 5; });
  REQUIRE(b.size() == 1);
  CHECK(b.front_time() == Time{10});
  CHECK(b.pop_front() == 4);
  CHECK(b.empty());
  b.push(Time{20}, 7);  // the emptied time can be used again
  CHECK(b.front_time() == Time{20});
  CHECK(b.pop_front() == 7);
}

TEST_CASE("time buckets and the queue shift every item later, keeping the order", "[core][events]") {
  TimeBuckets<int> b;
  for (int i = 0; i < 6; ++i) b.push(Time{i % 2 == 0 ? 10 : 20}, i);
  CHECK(b.pop_front() == 0);
  b.shift(Time{1000});
  std::vector<std::pair<std::int64_t, int>> seen;
  b.for_each([&](Time at, int v) { seen.emplace_back(at.ps, v); });
  CHECK(seen == std::vector<std::pair<std::int64_t, int>>{{1010, 2}, {1010, 4}, {1020, 1}, {1020, 3}, {1020, 5}});
  b.push(Time{1010}, 9);  // after a shift, pushes still join their bucket
  CHECK(b.size() == 6);
  BasicEventQueue<int> q;
  q.schedule(Time{5}, 1);
  q.advance_to(Time{3});
  q.shift(Time{100});
  CHECK(q.now() == Time{103});
  CHECK(q.next_time() == Time{105});
}
