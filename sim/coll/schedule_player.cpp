#include "sim/coll/schedule_player.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/coll/flow_driver.hpp"
#include "sim/coll/flow_plan.hpp"

namespace collsim {

namespace {

// Reverse edges of the dependency DAG, as CSR.
struct Dependents {
  std::vector<std::uint64_t> begin;
  std::vector<TransferId> list;
  std::vector<std::uint32_t> indegree;

  explicit Dependents(const Schedule& s) : begin(s.size() + 1, 0), indegree(s.size(), 0) {
    // Count, prefix-sum into start offsets, then fill each range moving its start
    // forward; afterwards begin[d] holds d's end, so shift by one (no scratch copy).
    for (TransferId t = 0; t < s.size(); ++t) {
      for (TransferId d : s.deps(t)) {
        ++begin[d + 1];
        ++indegree[t];
      }
    }
    for (std::size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
    list.resize(begin.back());
    for (TransferId t = 0; t < s.size(); ++t) {
      for (TransferId d : s.deps(t)) list[begin[d]++] = t;
    }
    for (std::size_t i = begin.size() - 1; i > 0; --i) begin[i] = begin[i - 1];
    begin[0] = 0;
  }
};

// A stored schedule's DAG: its transfers, and a reverse index to count dependencies down.
class StoredDag {
 public:
  explicit StoredDag(const Schedule& s) : s_(s), deps_(s) {}
  [[nodiscard]] const std::string& algorithm() const { return s_.algorithm(); }
  [[nodiscard]] std::uint64_t size() const { return s_.size(); }
  [[nodiscard]] Transfer transfer(std::uint64_t t) const { return s_.transfer(static_cast<TransferId>(t)); }
  [[nodiscard]] FlowPlan plan(const Transfer& tr, LinkGraph& graph, const StepCost& cost) const {
    return plan_flow(tr, graph, cost);
  }
  template <typename Start>
  void start_roots(Start&& start) {
    for (TransferId t = 0; t < s_.size(); ++t) {
      if (deps_.indegree[t] == 0) start(t);
    }
  }
  // Calls ready(d) for each dependent d of t whose last dependency t was, in id order.
  template <typename Ready>
  void finished(std::uint64_t t, Ready&& ready) {
    const std::uint64_t first = deps_.begin[t], end = deps_.begin[t + 1];
    // The dependents are scattered over arrays of millions of entries: load them all at
    // once, so their cache misses overlap instead of following one another.
    for (std::uint64_t i = first; i < end; ++i) {
      __builtin_prefetch(&deps_.indegree[deps_.list[i]]);
      s_.prefetch(deps_.list[i]);
    }
    for (std::uint64_t i = first; i < end; ++i) {
      const TransferId next = deps_.list[i];
      if (--deps_.indegree[next] == 0) ready(next);
    }
  }

 private:
  const Schedule& s_;
  Dependents deps_;
};

// A generated schedule's DAG: dependents computed, one byte per transfer counting the
// dependencies met (a ring's transfer has at most 3).
class GeneratedDag {
 public:
  explicit GeneratedDag(const GeneratedSchedule& g) : g_(g) {
    const std::uint64_t n = g.size();
    // Owners of flows are 32-bit, and the counters take a byte each.
    if (n >= std::numeric_limits<std::uint32_t>::max() || n > max_schedule_bytes()) {
      throw LimitError(fmt::format(
          "{} {} on {} ranks needs {} transfers, about {:.3g} GiB of dependency counters, more than the full replay "
          "takes ({} transfers, {:.3g} GiB); use fewer ranks or a larger slice, or raise the limit with "
          "COLLSIM_MAX_SCHEDULE_BYTES",
          g.algorithm(), to_string(g.collective().op), g.ranks(), n, static_cast<double>(n) / (1 << 30),
          std::numeric_limits<std::uint32_t>::max() - 1, static_cast<double>(max_schedule_bytes()) / (1 << 30)));
    }
    met_.assign(n, 0);
    routes_.assign(g.route_slots(), SlotRoute{});
  }
  [[nodiscard]] const std::string& algorithm() const { return g_.algorithm(); }
  [[nodiscard]] std::uint64_t size() const { return g_.size(); }
  [[nodiscard]] Transfer transfer(std::uint64_t t) { return g_.transfer(t, slot_); }
  // Of the transfer transfer() returned last: its slot's route and the route's latency,
  // found once (plan_flow's, without its per-transfer sum over the links).
  [[nodiscard]] FlowPlan plan(const Transfer& tr, LinkGraph& graph, const StepCost& cost) {
    SlotRoute& r = routes_[slot_];
    if (r.route == nullptr) {
      r.route = &graph.route(tr.src, tr.dst);
      r.latency = plan_latency(r.route->links, graph.topology(), cost);
    }
    if (tr.leg != TransferLeg::EndToEnd) return plan_flow(tr, *r.route, graph.topology(), cost);
    return FlowPlan{r.route->links, tr.pipelined ? Time{} : r.latency, wire_bytes(tr.bytes, cost), cost.flow_cap};
  }
  template <typename Start>
  void start_roots(Start&& start) {
    for (std::uint64_t t : g_.roots()) start(t);
  }
  template <typename Ready>
  void finished(std::uint64_t t, Ready&& ready) {
    GeneratedSchedule::Dependents next{};
    const std::size_t m = g_.dependents(t, next);
    for (std::size_t i = 0; i < m; ++i) {
      if (++met_[next[i].id] == next[i].indegree) ready(next[i].id);
    }
  }

 private:
  const GeneratedSchedule& g_;
  std::vector<std::uint8_t> met_;
  struct SlotRoute {
    const Route* route = nullptr;  // the LinkGraph's cache never moves them
    Time latency;                  // plan_latency of the whole route
  };
  std::vector<SlotRoute> routes_;  // per route slot
  std::uint64_t slot_ = 0;
};

template <typename Dag>
class Player {
 public:
  Player(Dag& dag, LinkGraph& g, const PlayOptions& o) : dag_(dag), graph_(g), opt_(o), driver_(g.topology(), o.scenario) {
    if (opt_.record_timings) timings_.resize(dag.size());
  }

  PlayResult run() {
    dag_.start_roots([this](std::uint64_t t) { start(t, Time{0}); });
    driver_.run([this](std::uint32_t t, Time now) { finish(t, now); });
    if (finished_ != dag_.size()) {
      throw InternalError(fmt::format("{}: {} of {} transfers never ran (a dependency cycle?)", dag_.algorithm(),
                                      dag_.size() - finished_, dag_.size()));
    }
    return PlayResult{end_, std::move(timings_), driver_.flows_started()};
  }

 private:
  void start(std::uint64_t t, Time now) {
    if (opt_.record_timings) timings_[t].start = now;
    const Transfer tr = dag_.transfer(t);
    if (tr.kind == TransferKind::Join) {
      finish(t, now);
      return;
    }
    Time from = now;
    if (!opt_.rank_arrival.empty()) {
      from = std::max({now, opt_.rank_arrival[static_cast<std::size_t>(tr.src)], opt_.rank_arrival[static_cast<std::size_t>(tr.dst)]});
    }
    driver_.add(static_cast<std::uint32_t>(t), dag_.plan(tr, graph_, opt_.cost), now, from);
  }

  void finish(std::uint64_t t, Time now) {
    ++finished_;
    if (opt_.record_timings) timings_[t].end = now;
    if (now > end_) end_ = now;
    dag_.finished(t, [this, now](std::uint64_t next) { start(next, now); });
  }

  Dag& dag_;
  LinkGraph& graph_;
  PlayOptions opt_;
  FlowDriver driver_;
  std::vector<TransferTiming> timings_;
  std::uint64_t finished_ = 0;
  Time end_{};
};

void check_ranks(int schedule_ranks, const LinkGraph& graph, const PlayOptions& options) {
  if (schedule_ranks != graph.topology().rank_count()) {
    throw InternalError(fmt::format("schedule for {} ranks played on a topology of {} ranks", schedule_ranks,
                                    graph.topology().rank_count()));
  }
  if (!options.rank_arrival.empty() && options.rank_arrival.size() != static_cast<std::size_t>(schedule_ranks)) {
    throw InternalError(fmt::format("{} rank arrival times for {} ranks", options.rank_arrival.size(), schedule_ranks));
  }
}

}  // namespace

PlayResult play_schedule(const Schedule& schedule, LinkGraph& graph, const PlayOptions& options) {
  check_ranks(schedule.ranks(), graph, options);
  StoredDag dag(schedule);
  return Player<StoredDag>(dag, graph, options).run();
}

PlayResult play_generated(const GeneratedSchedule& schedule, LinkGraph& graph, const PlayOptions& options) {
  check_ranks(schedule.ranks(), graph, options);
  GeneratedDag dag(schedule);
  return Player<GeneratedDag>(dag, graph, options).run();
}

}  // namespace collsim
