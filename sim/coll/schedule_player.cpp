#include "sim/coll/schedule_player.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/net/flow_network.hpp"

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
  Player(const Schedule& s, LinkGraph& g, const PlayOptions& o) : s_(s), graph_(g), opt_(o), deps_(s) {
    for (const auto& link : g.topology().links) net_.add_link(link.bandwidth);
    if (opt_.record_timings) timings_.resize(s.size());
  }

  PlayResult run() {
    for (TransferId t = 0; t < s_.size(); ++t) {
      if (deps_.indegree[t] == 0) start(t, Time{0});
    }
    std::vector<FlowId> done;
    while (true) {
      const auto tq = latency_done_.next_time();
      const auto tn = net_.next_completion();
      if (!tq && !tn) break;
      if (tn && (!tq || *tn <= *tq)) {
        done.clear();
        net_.complete_until(*tn, done);
        latency_done_.advance_to(*tn);
        for (FlowId f : done) finish(flow_owner_[f], *tn);
      } else {
        // Start every flow due at this instant before the network re-solves its rates,
        // so an incast of N flows is solved once, not N times.
        const Time at = *tq;
        do {
          const Waiting w = latency_done_.pop();
          launch(w.transfer, w.plan, at);
        } while (latency_done_.next_time() == at);
      }
    }
    if (finished_ != s_.size()) {
      throw InternalError(fmt::format("{}: {} of {} transfers never ran (a dependency cycle?)", s_.algorithm(),
                                      s_.size() - finished_, s_.size()));
    }
    return PlayResult{end_, std::move(timings_), flows_};
  }

 private:
  void start(TransferId t, Time now) {
    if (opt_.record_timings) timings_[t].start = now;
    const Transfer tr = s_.transfer(t);
    if (tr.kind == TransferKind::Join) {
      finish(t, now);
      return;
    }
    const FlowPlan plan = plan_flow(tr, graph_, opt_.cost);
    if (plan.latency.ps == 0) {
      launch(t, plan, now);
    } else {
      latency_done_.schedule(now + plan.latency, Waiting{t, plan});
    }
  }

  // The latency has elapsed: the bytes start to flow.
  void launch(TransferId t, const FlowPlan& plan, Time now) {
    const FlowId f = net_.start_flow(now, plan.links, plan.wire, plan.cap);
    if (flow_owner_.size() <= f) flow_owner_.resize(f + 1);
    flow_owner_[f] = t;
    ++flows_;
  }

  void finish(TransferId t, Time now) {
    ++finished_;
    if (opt_.record_timings) timings_[t].end = now;
    if (now > end_) end_ = now;
    for (std::uint64_t i = deps_.begin[t]; i < deps_.begin[t + 1]; ++i) {
      const TransferId next = deps_.list[i];
      if (--deps_.indegree[next] == 0) start(next, now);
    }
  }

  const Schedule& s_;
  LinkGraph& graph_;
  PlayOptions opt_;
  Dependents deps_;
  struct Waiting {
    TransferId transfer;
    FlowPlan plan;
  };
  BasicEventQueue<Waiting> latency_done_;
  FlowNetwork net_;
  std::vector<TransferId> flow_owner_;
  std::vector<TransferTiming> timings_;
  std::size_t finished_ = 0;
  std::uint64_t flows_ = 0;
  Time end_{};
};

}  // namespace

PlayResult play_schedule(const Schedule& schedule, LinkGraph& graph, const PlayOptions& options) {
  if (schedule.ranks() != graph.topology().rank_count()) {
    throw InternalError(fmt::format("schedule for {} ranks played on a topology of {} ranks", schedule.ranks(),
                                    graph.topology().rank_count()));
  }
  Player p(schedule, graph, options);
  return p.run();
}

}  // namespace collsim
