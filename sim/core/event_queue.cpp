#include "sim/core/event_queue.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

void EventQueue::schedule(Time at, Action action) {
  if (at < now_) {
    throw InternalError(fmt::format("event scheduled in the past: {} ps < now {} ps", at.ps, now_.ps));
  }
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(actions_.size());
    actions_.push_back(std::move(action));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    actions_[slot] = std::move(action);
  }
  heap_.push(Entry{at, next_seq_++, slot});
}

std::optional<Time> EventQueue::next_time() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.top().at;
}

void EventQueue::run_next() {
  if (heap_.empty()) throw InternalError("run_next on an empty event queue");
  const Entry e = heap_.top();
  heap_.pop();
  now_ = e.at;
  Action action = std::move(actions_[e.slot]);
  actions_[e.slot] = nullptr;
  free_slots_.push_back(e.slot);
  ++executed_;
  action();
}

void EventQueue::advance_to(Time t) {
  if (t < now_) throw InternalError("EventQueue::advance_to moves time backwards");
  if (!heap_.empty() && heap_.top().at < t) throw InternalError("EventQueue::advance_to skips a pending event");
  now_ = t;
}

}  // namespace collsim
