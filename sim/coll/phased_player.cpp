#include "sim/coll/phased_player.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <span>
#include <utility>

#include <spdlog/spdlog.h>

#include "sim/coll/flow_driver.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/shortest_paths.hpp"

namespace collsim {

namespace {

// A group: the transfers of one (src, dst) pair of one channel (Transfer::chunk carries
// the channel in a phased step; 0 when every channel follows the same ring).
struct GroupKey {
  std::int32_t src = 0;
  std::int32_t dst = 0;
  std::int32_t channel = 0;
  auto operator<=>(const GroupKey&) const = default;
};

struct StepSolve {
  std::vector<Time> end;           // per transfer of the step
  std::vector<std::int32_t> group; // per transfer: index of its group
  std::vector<GroupKey> groups;
  // No link carries two groups, or every link that does has room for all its flows at
  // their caps: then no group's rate depends on when the others run.
  bool independent = true;
};

struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const noexcept {
    return stable_hash(static_cast<std::uint32_t>(k.src), static_cast<std::uint32_t>(k.dst), static_cast<std::uint32_t>(k.channel));
  }
};

// Per-link state of solve_step, sized once for the fabric and reset only where a step
// touched it (a step of the 131,072-GPU fabric touches a fraction of its 1.7 M links).
struct StepScratch {
  explicit StepScratch(std::size_t links) : link_group(links, -1), shared(links, 0), solo_load(links, 0.0) {}
  std::vector<std::int32_t> link_group;  // the last group seen on the link; -1: none yet
  std::vector<std::uint8_t> shared;      // carries two groups or more
  // The sum of its flows' solo rates (each flow's rate were it alone on the fabric: its
  // cap or its narrowest link), bytes/s: no flow ever runs faster.
  std::vector<double> solo_load;
  std::vector<LinkId> touched;
  void reset() {
    for (LinkId l : touched) {
      link_group[l] = -1;
      shared[l] = 0;
      solo_load[l] = 0.0;
    }
    touched.clear();
  }
};

// All transfers of one step start at 0: each waits its latency, then flows.
StepSolve solve_step(const std::vector<Transfer>& step, LinkGraph& graph, const StepCost& cost, FlowDriver& driver,
                     StepScratch& scratch) {
  StepSolve out;
  out.end.assign(step.size(), Time{});
  // Group numbers by key, in order of first appearance: an open-addressing table at most
  // half full (a step of 131,072 transfers made a node-based map's allocations costly).
  std::size_t slots = 16;
  while (slots < 2 * step.size()) slots *= 2;
  std::vector<std::pair<GroupKey, std::int32_t>> group_of(slots, {GroupKey{}, -1});
  const auto group_slot = [&](const GroupKey& key) -> std::int32_t& {
    for (std::size_t i = GroupKeyHash{}(key) & (slots - 1);; i = (i + 1) & (slots - 1)) {
      if (group_of[i].second < 0 || group_of[i].first == key) {
        group_of[i].first = key;
        return group_of[i].second;
      }
    }
  };
  const auto& topo = graph.topology();
  scratch.reset();
  for (std::size_t j = 0; j < step.size(); ++j) {
    const Transfer& t = step[j];
    const GroupKey key{t.src, t.dst, t.chunk};
    std::int32_t& number = group_slot(key);
    if (number < 0) {
      number = static_cast<std::int32_t>(out.groups.size());
      out.groups.push_back(key);
    }
    const std::int32_t g = number;
    out.group.push_back(g);
    const FlowPlan plan = plan_flow(t, graph, cost);
    const double solo = driver.solo_rate(plan);
    for (LinkId l : plan.links) {
      if (scratch.link_group[l] < 0) {
        scratch.touched.push_back(l);
      } else if (scratch.link_group[l] != g) {
        scratch.shared[l] = 1;
      }
      scratch.link_group[l] = g;
      scratch.solo_load[l] += solo;
    }
    driver.add(static_cast<std::uint32_t>(j), plan, Time{0});
  }
  // A shared link whose flows all fit at their solo rates, with a margin, never limits
  // one: each group's rate is set by links of its own, whenever the others run.
  for (LinkId l : scratch.touched) {
    if (scratch.shared[l] && !(scratch.solo_load[l] * (1.0 + 1e-9) <= topo.links[l].bandwidth.bytes_per_s)) {
      out.independent = false;
      break;
    }
  }
  driver.run([&out](std::uint32_t j, Time t) { out.end[j] = t; });
  return out;
}

// Max-plus recurrence over the groups of an independent step (see the header):
// T(k+1, g) = max(T(k, p) for p in preds(g)) + d(g), T(0, g) = d(g), with preds(g) the
// groups into and out of g's source in g's channel. A group is among its own
// predecessors (it sends from its source), so T(k, g) >= (k+1) d(g) for the slowest
// group, and by induction every T(k, g) <= (k+1) max d: the phase ends at exactly
// repeats x max d, whatever the ring order or channel count (the slowest group paces
// its channel once its delay has gone round, and no channel can beat its slowest hop).
Time recurrence(const StepSolve& st, std::int64_t repeats) {
  std::int64_t dmax = 0;
  for (const Time& e : st.end) dmax = std::max(dmax, e.ps);
  return Time{dmax * repeats};
}

// Finds where a replayed phase repeats itself exactly, to skip the repeats.
//
// The replay's future depends only on its state at an instant, relative to that instant:
// per transfer, the steps it has finished and where it is (idle, in its latency until a
// time, or moving bytes: remaining, rate, last update, finish), and per sending rank its
// gate (open step, transfers awaited). The flow network's rates are a function of the set
// of flows on their routes, and all its arithmetic uses time differences, so two states
// equal relative to their instants and to transfer 0's step count evolve identically
// (flow ids differ, but they only order ties, and the outcome does not depend on that
// order). Contention settles into such a cycle after a transient: the replay records the
// state each time transfer 0 finishes a step, and when it meets a state it recorded m
// steps and D ps earlier, it moves every count m x s steps and the clock s x D later, for
// as many periods s as no rank would reach the phase's last step. The rest is replayed.
class PeriodFinder {
 public:
  struct Found {
    std::int64_t steps;  // m: transfer 0's steps per period
    Time period;         // D
  };
  // Records the state at instant `now` (rates solved): `finished` steps per transfer,
  // `open` step and `awaited` transfers per rank (only `senders` count), in-flight
  // transfers from the driver. Returns the period when it equals a kept earlier state.
  std::optional<Found> record(Time now, std::span<const std::int64_t> finished, std::span<const std::int64_t> open,
                              std::span<const std::uint32_t> awaited, std::span<const std::uint32_t> senders,
                              const FlowDriver& driver) {
    const std::int64_t base = finished[0];
    const std::size_t n = finished.size();
    words_.assign(n * kPerTransfer + senders.size() * 2, 0);
    for (std::size_t j = 0; j < n; ++j) words_[j * kPerTransfer] = finished[j] - base;
    driver.for_each_in_flight(
        [&](std::uint32_t j, Time due) {
          std::int64_t* w = &words_[std::size_t{j} * kPerTransfer];
          w[1] = 1;
          w[2] = (due - now).ps;
        },
        [&](std::uint32_t j, const FlowNetwork::FlowView& v) {
          std::int64_t* w = &words_[std::size_t{j} * kPerTransfer];
          w[1] = 2;
          std::memcpy(&w[2], &v.remaining, sizeof(double));  // the bits (emscripten lacks std::bit_cast)
          std::memcpy(&w[3], &v.rate, sizeof(double));
          w[4] = (v.last_update - now).ps;
          w[5] = v.finish == Time::max() ? -1 : (v.finish - now).ps;
        });
    std::size_t at = n * kPerTransfer;
    for (const std::uint32_t r : senders) {
      words_[at++] = open[r] - base;
      words_[at++] = awaited[r];
    }
    std::uint64_t h = 1469598103934665603ULL;
    for (const std::int64_t w : words_) h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ULL;
    for (const Record& r : kept_) {
      if (r.hash == h && r.base < base && r.words == words_) return Found{base - r.base, now - r.at};
    }
    Record& slot = kept_[next_++ % kept_.size()];
    slot.hash = h;
    slot.base = base;
    slot.at = now;
    slot.words.swap(words_);
    return std::nullopt;
  }

 private:
  static constexpr std::size_t kPerTransfer = 6;
  struct Record {
    std::uint64_t hash = 0;
    std::int64_t base = -1;
    Time at{};
    std::vector<std::int64_t> words;
  };
  std::array<Record, 4> kept_;  // the last states: cycles of up to 4 steps of transfer 0
  std::size_t next_ = 0;
  std::vector<std::int64_t> words_;
};

// Replays a phase transfer by transfer: `repeats` steps, each transfer of step k+1 waiting
// for the step-k transfers into and out of its source rank. Streamed: a transfer's step
// k+1 cannot start before its step k has ended (it touches its own source), so each of
// the step's transfers is in flight at most once, and a rank's gate needs only how many
// steps each transfer touching it has finished. Memory follows the step, not repeats x
// step; routes and costs are planned once per phase.
Time replay_phase(const SchedulePhase& phase, LinkGraph& graph, const StepCost& cost, FlowDriver& driver,
                  std::uint64_t& steps_skipped) {
  const std::vector<Transfer>& step = phase.step;
  const auto ranks = static_cast<std::size_t>(graph.topology().rank_count());
  const auto n = static_cast<std::uint32_t>(step.size());
  std::vector<FlowPlan> plans;
  plans.reserve(n);
  for (const Transfer& t : step) plans.push_back(plan_flow(t, graph, cost));
  // Per rank, as CSR: the step's transfers it sends, and those into or out of it.
  std::vector<std::uint32_t> out_begin(ranks + 1, 0), touch_begin(ranks + 1, 0);
  for (const Transfer& t : step) {
    ++out_begin[static_cast<std::size_t>(t.src) + 1];
    ++touch_begin[static_cast<std::size_t>(t.src) + 1];
    ++touch_begin[static_cast<std::size_t>(t.dst) + 1];
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    out_begin[r + 1] += out_begin[r];
    touch_begin[r + 1] += touch_begin[r];
  }
  std::vector<std::uint32_t> outs(out_begin.back()), touches(touch_begin.back());
  {
    std::vector<std::uint32_t> o(out_begin.begin(), out_begin.end() - 1), u(touch_begin.begin(), touch_begin.end() - 1);
    for (std::uint32_t j = 0; j < n; ++j) {
      outs[o[static_cast<std::size_t>(step[j].src)]++] = j;
      touches[u[static_cast<std::size_t>(step[j].src)]++] = j;
      touches[u[static_cast<std::size_t>(step[j].dst)]++] = j;
    }
  }
  std::vector<std::int64_t> finished(n, 0);  // per transfer: steps it has finished
  std::vector<std::int64_t> open(ranks, 0);  // per rank: the step its sends are in
  std::vector<std::uint32_t> waiting(ranks); // per rank: its transfers not yet past that step
  for (std::size_t r = 0; r < ranks; ++r) waiting[r] = touch_begin[r + 1] - touch_begin[r];
  std::vector<std::uint32_t> senders;
  for (std::size_t r = 0; r < ranks; ++r) {
    if (out_begin[r] != out_begin[r + 1]) senders.push_back(static_cast<std::uint32_t>(r));
  }
  for (std::uint32_t j = 0; j < n; ++j) driver.add(j, plans[j], Time{});
  Time end{};
  PeriodFinder finder;
  bool look = n > 0;  // until a period is found (or can no longer be skipped)
  bool record_now = false;
  const auto on_done = [&](std::uint32_t j, Time now) {
    const std::int64_t k = finished[j]++;
    end = std::max(end, now);
    record_now = record_now || (j == 0 && look);
    const auto a = static_cast<std::size_t>(std::min(step[j].src, step[j].dst));
    const auto b = static_cast<std::size_t>(std::max(step[j].src, step[j].dst));
    for (const std::size_t r : {a, b}) {  // in rank order, as a stored schedule's gates are
      if (k != open[r] || --waiting[r] > 0) continue;  // ahead of the rank, or not the last
      if (out_begin[r] == out_begin[r + 1]) continue;  // sends nothing: gates nothing
      const std::int64_t next = ++open[r];
      if (next < phase.repeats) {
        for (std::uint32_t i = out_begin[r]; i < out_begin[r + 1]; ++i) driver.add(outs[i], plans[outs[i]], now);
      }
      // Transfers into r may have finished step `next` already.
      waiting[r] = 0;
      for (std::uint32_t i = touch_begin[r]; i < touch_begin[r + 1]; ++i) waiting[r] += finished[touches[i]] <= next;
    }
  };
  const auto at_rest = [&](Time now) {
    if (!record_now) return false;
    record_now = false;
    const auto found = finder.record(now, finished, open, waiting, senders, driver);
    if (!found) return false;
    look = false;
    // Skip s periods: every rank's open step, now at most `highest`, stays below repeats.
    std::int64_t highest = 0;
    for (const std::uint32_t r : senders) highest = std::max(highest, open[r]);
    const std::int64_t s = (phase.repeats - 1 - highest) / found->steps;
    if (s <= 0) return false;
    const std::int64_t skipped = s * found->steps;
    steps_skipped += static_cast<std::uint64_t>(skipped);
    for (auto& f : finished) f += skipped;
    for (const std::uint32_t r : senders) open[r] += skipped;
    const Time d = Time{found->period.ps * s};
    driver.shift(d);
    end = end + d;
    spdlog::debug("phase \"{}\": repeats every {} steps ({} ps) from {} ps: skipped {} steps", phase.name, found->steps,
                  found->period.ps, now.ps, skipped);
    return true;
  };
  driver.run(on_done, at_rest);
  return end;
}

}  // namespace

PhasedResult play_phased(const PhasedSchedule& s, LinkGraph& graph, const PlayOptions& options) {
  // Link events and late ranks break the steps' repetition: those are replayed in full.
  if (options.scenario || !options.rank_arrival.empty()) {
    throw InternalError("the fast path plays neither link events nor late ranks");
  }
  PhasedResult result;
  // One flow network for every solve and replay, rewound before each: building one for
  // the 1.7 M links of the 131,072-GPU fabric costs more than solving a step on it.
  FlowDriver driver(graph.topology());
  const auto rewound = [&driver]() -> FlowDriver& {
    driver.rewind();
    return driver;
  };
  StepScratch scratch(graph.topology().links.size());
  for (const SchedulePhase& phase : s.phases) {
    if (phase.step.empty() || phase.repeats == 0) continue;
    const StepSolve st = solve_step(phase.step, graph, options.cost, rewound(), scratch);
    result.flows_solved += phase.step.size();
    const auto [first, last] = std::minmax_element(st.end.begin(), st.end.end());
    if (st.independent) {
      result.duration += recurrence(st, phase.repeats);
      continue;
    }
    // Uniform: every flow of the step ends together (2 ps of rounding slack, or 1e-9 of
    // the step for very long steps), so ranks stay in lock-step.
    const std::int64_t spread = last->ps - first->ps;
    if (spread <= std::max<std::int64_t>(2, last->ps / 1'000'000'000)) {
      result.duration += *last * phase.repeats;
      continue;
    }
    spdlog::debug("phase \"{}\": flows of different rank pairs share links and end {} ps apart: replaying its {} x {} transfers",
                  phase.name, spread, phase.repeats, phase.step.size());
    result.duration += replay_phase(phase, graph, options.cost, rewound(), result.steps_skipped);
    result.flows_solved += phase.step.size() * static_cast<std::uint64_t>(phase.repeats);
    ++result.phases_replayed;
  }
  return result;
}

}  // namespace collsim
