// A deterministic discrete-event queue: events fire in time order (Time = int64 ps),
// ties broken by insertion order. One instance per simulation, no global state.
// BasicEventQueue<P> carries a plain payload (the engine's hot path uses a transfer id);
// EventQueue carries callbacks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/core/time_buckets.hpp"
#include "sim/core/units.hpp"

namespace collsim {

template <typename Payload>
class BasicEventQueue {
 public:
  // Schedules `payload` at `at` (which must not be before now()).
  void schedule(Time at, Payload payload) {
    if (at < now_) throw InternalError("event scheduled in the past");
    events_.push(at, std::move(payload));
  }
  // The same with the payload built in place from `args`.
  template <typename... Args>
  void emplace(Time at, Args&&... args) {
    if (at < now_) throw InternalError("event scheduled in the past");
    events_.emplace(at, std::forward<Args>(args)...);
  }

  // Time of the earliest pending event, if any.
  [[nodiscard]] std::optional<Time> next_time() const {
    if (events_.empty()) return std::nullopt;
    return events_.front_time();
  }

  // Removes the earliest event, sets now() to its time and returns its payload.
  Payload pop() {
    if (events_.empty()) throw InternalError("pop on an empty event queue");
    now_ = events_.front_time();
    ++executed_;
    return events_.pop_front();
  }

  // Lets an outside clock (the network model) move time forward between events.
  void advance_to(Time t) {
    if (t < now_) throw InternalError("event queue moved backwards");
    if (!events_.empty() && events_.front_time() < t) throw InternalError("event queue skipped a pending event");
    now_ = t;
  }

  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] bool empty() const { return events_.empty(); }
  // Moves the clock and every pending event `d` later (a replay skipping repeated periods).
  void shift(Time d) {
    now_ = now_ + d;
    events_.shift(d);
  }
  // Calls visit(time, payload) for every pending event, in firing order.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    events_.for_each(visit);
  }
  // Back to time 0; only when empty.
  void rewind() {
    if (!events_.empty()) throw InternalError("event queue rewound with events pending");
    now_ = Time{};
  }
  [[nodiscard]] std::size_t size() const { return events_.size(); }
  [[nodiscard]] std::uint64_t executed() const { return executed_; }

 private:
  TimeBuckets<Payload> events_;
  Time now_{};
  std::uint64_t executed_ = 0;
};

// Callback events: pop and run.
class EventQueue : public BasicEventQueue<std::function<void()>> {
 public:
  using Action = std::function<void()>;
  void run_next() { pop()(); }
};

}  // namespace collsim
