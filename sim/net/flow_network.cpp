#include "sim/net/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "sim/core/error.hpp"

namespace collsim {

// Max-min fairness by progressive filling
// ---------------------------------------
// Within one connected component (flows linked through shared links), every unfrozen
// flow's rate rises together. A link with capacity C, of which R is still unallocated,
// carrying k unfrozen flows saturates when the common level reaches R / k; a capped flow
// stops at its cap. The smallest of these levels is fixed: the flows of the saturating
// link(s) (or the capped flows) freeze at that level, their rate is subtracted from every
// link they cross, and filling continues with the rest. The result is the unique max-min
// fair allocation: no flow can get more without taking from a flow that has no more.
// Levels equal within a relative 1e-12 are treated as equal, so symmetric flows get
// bit-identical rates.
//
// Loose links
// -----------
// A link whose flows are all capped, with caps summing to less than its capacity (by a
// margin of 1e-9), never saturates: whatever the other links do, its flows fit. So it
// never limits a flow and never joins two flows into one component; a flow whose links
// are all loose runs at its cap with no solve at all. (With the margin, such a link's
// level R / k stays above the filling level by more than the 1e-12 tie tolerance, so
// leaving it out changes no rate.) Protocols cap every flow at a channel's bandwidth,
// and most links of a big collective are loose most of the time: this is what keeps the
// components, and the work per completion, small.

LinkId FlowNetwork::add_link(Bandwidth capacity) {
  if (!(capacity.bytes_per_s > 0)) throw InternalError("FlowNetwork link capacity must be positive");
  Link link;
  link.capacity = capacity.bytes_per_s;
  links_.push_back(std::move(link));
  return static_cast<LinkId>(links_.size() - 1);
}

void FlowNetwork::rewind() {
  if (active_ != 0) throw InternalError("FlowNetwork::rewind with flows in flight");
  for (LinkId l : dirty_links_) links_[l].dirty = false;
  dirty_links_.clear();
  new_flows_.clear();
  released_.clear();
  pending_.clear();
  now_ = Time{};
  free_flows_.clear();
  for (auto f = static_cast<FlowId>(flows_.size()); f-- > 0;) free_flows_.push_back(f);  // popped as 0, 1, 2...
}

FlowId FlowNetwork::start_flow(Time now, std::span<const LinkId> route, Bytes bytes, std::optional<Bandwidth> cap) {
  if (now < now_) throw InternalError("FlowNetwork::start_flow in the past");
  now_ = now;
  const FlowId id = allocate_flow();
  Flow& f = flows_[id];
  f.route = route;
  f.remaining = static_cast<double>(bytes.count);
  f.rate = 0;
  f.cap = cap ? cap->bytes_per_s : 0.0;
  f.cap_units = f.cap > 0 && f.cap <= kMaxExactCap ? static_cast<std::uint64_t>(std::ceil(f.cap)) : 0;
  f.last_update = now;
  f.finish = Time::max();
  f.active = true;
  ++f.version;
  ++active_;
  if (bytes.count <= 0 || f.route.empty()) {
    if (f.route.empty() && bytes.count > 0) {
      if (f.cap <= 0) throw InternalError("a flow with bytes needs a route or a rate cap");
      f.rate = f.cap;
      f.finish = now + transfer_time(f.remaining, f.rate);
    } else {
      f.finish = now;
    }
    f.route = {};
    push_pending(f.finish, Pending{id, f.version});
    return id;
  }
  join_links(id);
  return id;
}

// join_links and leave_links run once per flow of a replay: inlined into their callers.
[[gnu::always_inline]] inline void FlowNetwork::join_links(FlowId id) {
  const Flow& f = flows_[id];
  bool alone = true;  // no other flow on any of its links
  for (LinkId l : f.route) {
    if (l >= links_.size()) throw InternalError("flow route names an unknown link");
    alone = alone && links_[l].flows.empty();
  }
  for (LinkId l : f.route) {
    Link& link = links_[l];
    link.flows.push_back(id);
    if (f.cap_units == 0) {
      ++link.uncapped;
    } else {
      link.cap_sum += f.cap_units;
    }
    update_tight(link);
    // A tight link's flows share it: solve them again. On a loose one nobody else changes.
    if (link.tight && !alone) mark_dirty(l);
  }
  if (alone) {
    // Its own component: its rate is its solo rate at once, with nothing marked. A flow
    // joining one of its links later marks that link (tight) and re-solves them together.
    set_rate(id, solo_rate(f.route, f.cap));
  } else {
    new_flows_.push_back(id);
  }
}

[[gnu::always_inline]] inline void FlowNetwork::leave_links(FlowId id, bool batch) {
  const Flow& f = flows_[id];
  for (LinkId l : f.route) {
    Link& link = links_[l];
    // Often the last to join (always when alone): no search, no shift.
    if (link.flows.back() == id) {
      link.flows.pop_back();
    } else if (batch) {
      if (link.leaving++ == 0) leaving_links_.push_back(l);
    } else {
      link.flows.erase(std::find(link.flows.begin(), link.flows.end(), id));
    }
    if (f.cap_units == 0) {
      --link.uncapped;
    } else {
      link.cap_sum -= f.cap_units;
    }
    const bool was_tight = link.tight;
    update_tight(link);
    // The others' shares grow (or the link turned loose and its flows may reach their caps).
    if (was_tight && link.flows.size() > link.leaving) mark_dirty(l);
  }
}

void FlowNetwork::set_rate(FlowId id, double rate) {
  Flow& f = flows_[id];
  if (f.rate == rate && f.finish != Time::max()) return;
  // Bytes sent since the last update at the old rate.
  if (f.rate > 0 && now_ > f.last_update) {
    f.remaining -= f.rate * (now_ - f.last_update).seconds();
    if (f.remaining < 0) f.remaining = 0;
  }
  f.last_update = now_;
  f.rate = rate;
  ++f.version;
  f.finish = rate > 0 ? now_ + transfer_time(f.remaining, rate) : Time::max();
  if (f.finish != Time::max()) {
    push_pending(f.finish, Pending{id, f.version});
    // Every rate change leaves the flow's previous entry behind. In a big component every
    // completion changes every rate, so without this the heap would grow with the events,
    // not with the flows in flight: keep it within twice the flows plus a margin.
    if (pending_.size() > 2 * active_ + 4096) compact_pending();
  }
}

void FlowNetwork::compact_pending() {
  pending_.erase_if([this](const Pending& p) { return !flows_[p.flow].active || flows_[p.flow].version != p.version; });
}

void FlowNetwork::set_capacity(LinkId l, Bandwidth capacity) {
  if (!(capacity.bytes_per_s > 0)) throw InternalError("FlowNetwork link capacity must be positive");
  links_[l].capacity = capacity.bytes_per_s;
  update_tight(links_[l]);
  mark_dirty(l);
}

void FlowNetwork::reroute(FlowId id, std::span<const LinkId> route) {
  Flow& f = flows_[id];
  if (!f.active || route.empty()) throw InternalError("FlowNetwork::reroute needs an active flow and a route");
  // Bytes sent until now at the old rate; the flow then waits for its new rate.
  if (f.rate > 0 && now_ > f.last_update) {
    f.remaining = std::max(0.0, f.remaining - f.rate * (now_ - f.last_update).seconds());
  }
  f.last_update = now_;
  f.rate = 0;
  f.finish = Time::max();
  ++f.version;
  leave_links(id, false);
  f.route = route;
  join_links(id);
}

void FlowNetwork::resolve() {
  if (dirty_links_.empty() && new_flows_.empty()) return;
  // Components are independent and each one's rates do not depend on the order they are
  // solved in, so dirty links need no sorting. A flow or link marked after `round` was
  // solved in this call.
  const std::uint64_t round = stamp_;
  for (LinkId seed : dirty_links_) {
    Link& link = links_[seed];
    if (!link.dirty) continue;  // already swept into an earlier component
    if (link.tight) {
      solve_from_link(seed);
      continue;
    }
    // Turned loose: each of its flows is now alone, at its cap, or in a smaller component.
    link.dirty = false;
    for (FlowId fid : link.flows) {
      if (flows_[fid].mark <= round) solve_from(fid);
    }
  }
  dirty_links_.clear();
  for (FlowId fid : new_flows_) {
    if (flows_[fid].active && flows_[fid].mark <= round) solve_from(fid);
  }
  new_flows_.clear();
}

void FlowNetwork::solve_from(FlowId seed) {
  Flow& f = flows_[seed];
  f.mark = ++stamp_;
  comp_flows_.assign(1, seed);
  comp_links_.clear();
  stack_.clear();
  for (LinkId l : f.route) {
    if (links_[l].tight && links_[l].mark != stamp_) {
      links_[l].mark = stamp_;
      stack_.push_back(l);
    }
  }
  collect_component();
}

void FlowNetwork::solve_from_link(LinkId seed) {
  ++stamp_;
  comp_flows_.clear();
  comp_links_.clear();
  stack_.assign(1, seed);
  links_[seed].mark = stamp_;
  collect_component();
}

// Grows the component from the links on stack_ through tight links, then solves it.
void FlowNetwork::collect_component() {
  while (!stack_.empty()) {
    const LinkId l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    links_[l].dirty = false;
    for (FlowId fid : links_[l].flows) {
      Flow& f = flows_[fid];
      if (f.mark == stamp_) continue;
      f.mark = stamp_;
      comp_flows_.push_back(fid);
      for (LinkId nl : f.route) {
        if (links_[nl].tight && links_[nl].mark != stamp_) {
          links_[nl].mark = stamp_;
          stack_.push_back(nl);
        }
      }
    }
  }
  if (comp_flows_.size() == 1) {
    // Alone on its tight links (or on none): its narrowest link or its cap.
    const Flow& f = flows_[comp_flows_.front()];
    set_rate(comp_flows_.front(), solo_rate(f.route, f.cap));
  } else if (!comp_flows_.empty()) {
    solve_component(comp_flows_, comp_links_);
  }
}

void FlowNetwork::solve_component(std::vector<FlowId>& flows, std::vector<LinkId>& links) {
  ++solves_;
  // No sorting: the search order is deterministic, and the allocation does not depend on it.
  if (link_remaining_.size() < links_.size()) {
    link_remaining_.resize(links_.size());
    link_unfrozen_.resize(links_.size());
  }
  for (LinkId l : links) {
    link_remaining_[l] = links_[l].capacity;
    link_unfrozen_[l] = static_cast<std::uint32_t>(links_[l].flows.size());
  }
  std::vector<FlowId>& unfrozen = unfrozen_;
  unfrozen.assign(flows.begin(), flows.end());
  std::vector<double>& new_rate = new_rate_;
  new_rate.assign(flows.size(), 0.0);
  if (slot_of_.size() < flows_.size()) slot_of_.resize(flows_.size());
  for (std::size_t i = 0; i < flows.size(); ++i) slot_of_[flows[i]] = static_cast<std::uint32_t>(i);
  auto rate_slot = [this](FlowId f) { return static_cast<std::size_t>(slot_of_[f]); };
  constexpr double kRelTol = 1e-12;
  while (!unfrozen.empty()) {
    double level = std::numeric_limits<double>::infinity();
    for (LinkId l : links) {
      if (link_unfrozen_[l] > 0) level = std::min(level, link_remaining_[l] / link_unfrozen_[l]);
    }
    for (FlowId f : unfrozen) {
      if (flows_[f].cap > 0) level = std::min(level, flows_[f].cap);
    }
    if (!(level < std::numeric_limits<double>::infinity())) throw InternalError("max-min filling found no bottleneck");
    const double threshold = level * (1.0 + kRelTol);
    std::vector<FlowId>& still = still_;
    still.clear();
    for (FlowId f : unfrozen) {
      const Flow& flow = flows_[f];
      bool freeze = flow.cap > 0 && flow.cap <= threshold;
      for (std::size_t i = 0; !freeze && i < flow.route.size(); ++i) {
        const LinkId l = flow.route[i];
        freeze = links_[l].tight && link_remaining_[l] / link_unfrozen_[l] <= threshold;
      }
      if (freeze) {
        new_rate[rate_slot(f)] = level;
      } else {
        still.push_back(f);
      }
    }
    // Subtract the frozen flows only after the test above, so every flow of a
    // saturating link sees the same level.
    for (FlowId f : unfrozen) {
      if (new_rate[rate_slot(f)] == 0.0) continue;
      for (LinkId l : flows_[f].route) {
        if (!links_[l].tight) continue;  // loose: not in the component
        link_remaining_[l] = std::max(0.0, link_remaining_[l] - level);
        --link_unfrozen_[l];
      }
    }
    if (still.size() == unfrozen.size()) throw InternalError("max-min filling made no progress");
    unfrozen.swap(still);
  }
  for (std::size_t i = 0; i < flows.size(); ++i) set_rate(flows[i], new_rate[i]);
}

std::optional<Time> FlowNetwork::next_completion() {
  resolve();
  while (!pending_.empty()) {
    const Pending& p = pending_.front();
    const Flow& f = flows_[p.flow];
    if (f.active && f.version == p.version) return pending_.front_time();
    pop_pending();
  }
  return std::nullopt;
}

void FlowNetwork::complete_until(Time t, std::vector<FlowId>& done) {
  const auto next = next_completion();
  if (next && *next < t) throw InternalError("FlowNetwork::complete_until skips a completion");
  if (t < now_) throw InternalError("FlowNetwork::complete_until moves time backwards");
  now_ = t;
  // Ids finished by the previous call become reusable only now, so a caller may still
  // map them while it reacts to that call's completions.
  free_flows_.insert(free_flows_.end(), released_.begin(), released_.end());
  released_.clear();
  // The flows ending at t, by id (a bucket holds them in the order their rates were set).
  const std::size_t first = done.size();
  while (!pending_.empty() && pending_.front_time() == t) {
    const Pending p = pending_.front();
    pop_pending();
    const Flow& f = flows_[p.flow];
    if (f.active && f.version == p.version) done.push_back(p.flow);
  }
  // Often already in order, or in reverse (ids handed out from the back of the free
  // list): those cost one pass, not a sort.
  const auto from = done.begin() + static_cast<std::ptrdiff_t>(first);
  if (std::is_sorted(from, done.end(), std::greater<>{})) {
    std::reverse(from, done.end());
  } else if (!std::is_sorted(from, done.end())) {
    std::sort(from, done.end());
  }
  for (std::size_t i = first; i < done.size(); ++i) {
    const FlowId id = done[i];
    Flow& f = flows_[id];
    f.active = false;
    f.remaining = 0;
    ++f.version;
    --active_;
    leave_links(id, true);
    f.route = {};
    released_.push_back(id);
  }
  // The flows that left a link other than last go in one pass, the rest keeping their order.
  for (LinkId l : leaving_links_) {
    Link& link = links_[l];
    std::erase_if(link.flows, [this](FlowId x) { return !flows_[x].active; });
    link.leaving = 0;
  }
  leaving_links_.clear();
}

void FlowNetwork::shift(Time d) {
  if (!dirty_links_.empty() || !new_flows_.empty()) throw InternalError("FlowNetwork::shift with rates unsolved");
  now_ = now_ + d;
  for (Flow& f : flows_) {
    if (!f.active) continue;
    f.last_update = f.last_update + d;
    f.finish = f.finish + d;  // never stays never
  }
  pending_.shift(d);
}

double FlowNetwork::rate(FlowId f) {
  resolve();
  return flows_[f].rate;
}

}  // namespace collsim
