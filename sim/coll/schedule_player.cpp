#include "sim/coll/schedule_player.hpp"

#include <algorithm>

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

class Player {
 public:
  Player(const Schedule& s, LinkGraph& g, const PlayOptions& o)
      : s_(s), graph_(g), opt_(o), deps_(s), driver_(g.topology(), o.scenario) {
    if (opt_.record_timings) timings_.resize(s.size());
  }

  PlayResult run() {
    for (TransferId t = 0; t < s_.size(); ++t) {
      if (deps_.indegree[t] == 0) start(t, Time{0});
    }
    driver_.run([this](TransferId t, Time now) { finish(t, now); });
    if (finished_ != s_.size()) {
      throw InternalError(fmt::format("{}: {} of {} transfers never ran (a dependency cycle?)", s_.algorithm(),
                                      s_.size() - finished_, s_.size()));
    }
    return PlayResult{end_, std::move(timings_), driver_.flows_started()};
  }

 private:
  void start(TransferId t, Time now) {
    if (opt_.record_timings) timings_[t].start = now;
    const Transfer tr = s_.transfer(t);
    if (tr.kind == TransferKind::Join) {
      finish(t, now);
      return;
    }
    Time from = now;
    if (!opt_.rank_arrival.empty()) {
      from = std::max({now, opt_.rank_arrival[static_cast<std::size_t>(tr.src)], opt_.rank_arrival[static_cast<std::size_t>(tr.dst)]});
    }
    driver_.add(t, plan_flow(tr, graph_, opt_.cost), now, from);
  }

  void finish(TransferId t, Time now) {
    ++finished_;
    if (opt_.record_timings) timings_[t].end = now;
    if (now > end_) end_ = now;
    const std::uint64_t first = deps_.begin[t], end = deps_.begin[t + 1];
    // The dependents are scattered over arrays of millions of entries: load them all at
    // once, so their cache misses overlap instead of following one another.
    for (std::uint64_t i = first; i < end; ++i) {
      __builtin_prefetch(&deps_.indegree[deps_.list[i]]);
      s_.prefetch(deps_.list[i]);
    }
    for (std::uint64_t i = first; i < end; ++i) {
      const TransferId next = deps_.list[i];
      if (--deps_.indegree[next] == 0) start(next, now);
    }
  }

  const Schedule& s_;
  LinkGraph& graph_;
  PlayOptions opt_;
  Dependents deps_;
  FlowDriver driver_;
  std::vector<TransferTiming> timings_;
  std::size_t finished_ = 0;
  Time end_{};
};

}  // namespace

PlayResult play_schedule(const Schedule& schedule, LinkGraph& graph, const PlayOptions& options) {
  if (schedule.ranks() != graph.topology().rank_count()) {
    throw InternalError(fmt::format("schedule for {} ranks played on a topology of {} ranks", schedule.ranks(),
                                    graph.topology().rank_count()));
  }
  if (!options.rank_arrival.empty() && options.rank_arrival.size() != static_cast<std::size_t>(schedule.ranks())) {
    throw InternalError(fmt::format("{} rank arrival times for {} ranks", options.rank_arrival.size(), schedule.ranks()));
  }
  Player p(schedule, graph, options);
  return p.run();
}

}  // namespace collsim
