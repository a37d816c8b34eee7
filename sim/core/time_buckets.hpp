// A priority queue keyed by Time (int64 ps) that keeps items of equal time in insertion
// order, stored as one bucket per distinct time. Simulations of collectives schedule many
// events at exactly the same picosecond (every flow of a ring step ends together), so
// a push into an existing bucket is an append and a pop is an index step: cheaper than
// a binary heap, and deterministic by construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

template <typename Item>
class TimeBuckets {
 public:
  void push(Time at, Item item) { emplace(at, std::move(item)); }
  // The item built in place from `args` (no copies through the stack: a replay queues
  // tens of millions).
  template <typename... Args>
  void emplace(Time at, Args&&... args) {
    if (last_ == buckets_.end() || last_->first != at.ps) {
      last_ = buckets_.try_emplace(at.ps).first;
      if (last_->second.items.capacity() == 0 && !spare_.empty()) {
        last_->second.items = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    last_->second.items.emplace_back(std::forward<Args>(args)...);
    ++size_;
  }

  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  // Time and item at the front; only when !empty().
  [[nodiscard]] Time front_time() const { return Time{buckets_.begin()->first}; }
  [[nodiscard]] const Item& front() const {
    const Bucket& b = buckets_.begin()->second;
    return b.items[b.next];
  }

  // Drops every item `drop` accepts (the rest keep their order).
  template <typename Drop>
  void erase_if(Drop drop) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      Bucket& b = it->second;
      b.items.erase(b.items.begin(), b.items.begin() + static_cast<std::ptrdiff_t>(b.next));
      b.next = 0;
      size_ -= std::erase_if(b.items, drop);
      if (b.items.empty()) {
        if (last_ == it) last_ = buckets_.end();
        recycle(b);
        it = buckets_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Moves every item `d` later, keeping the order.
  void shift(Time d) {
    std::map<std::int64_t, Bucket> moved;
    for (auto& [at, bucket] : buckets_) moved.emplace_hint(moved.end(), at + d.ps, std::move(bucket));
    buckets_.swap(moved);
    last_ = buckets_.end();
  }

  // Calls visit(time, item) for every item, in order.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const auto& [at, bucket] : buckets_) {
      for (std::size_t i = bucket.next; i < bucket.items.size(); ++i) visit(Time{at}, bucket.items[i]);
    }
  }

  void clear() {
    buckets_.clear();
    last_ = buckets_.end();
    size_ = 0;
  }

  Item pop_front() {
    auto it = buckets_.begin();
    Bucket& b = it->second;
    Item item = std::move(b.items[b.next++]);
    --size_;
    if (b.next == b.items.size()) {
      if (last_ == it) last_ = buckets_.end();
      recycle(b);
      buckets_.erase(it);
    }
    return item;
  }

 private:
  struct Bucket {
    std::vector<Item> items;
    std::size_t next = 0;
  };
  // An emptied bucket's storage, kept for the next new time: a replay opens a bucket per
  // distinct instant, and growing each one from nothing costs allocations and copies.
  void recycle(Bucket& b) {
    if (spare_.size() >= kMaxSpare) return;
    b.items.clear();
    spare_.push_back(std::move(b.items));
  }
  static constexpr std::size_t kMaxSpare = 4;  // a replay has few instants pending at once
  std::map<std::int64_t, Bucket> buckets_;
  std::vector<std::vector<Item>> spare_;
  typename std::map<std::int64_t, Bucket>::iterator last_ = buckets_.end();
  std::size_t size_ = 0;
};

}  // namespace collsim
