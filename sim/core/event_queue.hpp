// A deterministic discrete-event queue: events fire in time order (Time = int64 ps),
// ties broken by insertion order. One instance per simulation, no global state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

class EventQueue {
 public:
  using Action = std::function<void()>;

  // Schedules `action` to run at `at` (which must not be before now()).
  void schedule(Time at, Action action);

  // Time of the earliest pending event, if any.
  [[nodiscard]] std::optional<Time> next_time() const;

  // Pops the earliest event, sets now() to its time and runs it.
  void run_next();

  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  [[nodiscard]] std::uint64_t executed() const { return executed_; }

  // Lets an outside clock (the network model) move time forward between events.
  void advance_to(Time t);

 private:
  struct Entry {
    Time at;
    std::uint64_t seq;
    std::uint32_t slot;  // index into actions_
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::vector<Action> actions_;
  std::vector<std::uint32_t> free_slots_;
  Time now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t executed_ = 0;
};

}  // namespace collsim
