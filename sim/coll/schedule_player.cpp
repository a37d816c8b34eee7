#include "sim/coll/schedule_player.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"
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
    for (TransferId t = 0; t < s.size(); ++t) {
      for (TransferId d : s.deps(t)) {
        ++begin[d + 1];
        ++indegree[t];
      }
    }
    for (std::size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
    list.resize(begin.back());
    std::vector<std::uint64_t> fill(begin.begin(), begin.end() - 1);
    for (TransferId t = 0; t < s.size(); ++t) {
      for (TransferId d : s.deps(t)) list[fill[d]++] = t;
    }
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
      const auto tq = queue_.next_time();
      const auto tn = net_.next_completion();
      if (!tq && !tn) break;
      if (tn && (!tq || *tn <= *tq)) {
        done.clear();
        net_.complete_until(*tn, done);
        queue_.advance_to(*tn);
        for (FlowId f : done) finish(flow_owner_[f], *tn);
      } else {
        queue_.run_next();
      }
    }
    if (finished_ != s_.size()) {
      throw InternalError(fmt::format("{}: {} of {} transfers never ran (a dependency cycle?)", s_.algorithm(),
                                      s_.size() - finished_, s_.size()));
    }
    return PlayResult{end_, std::move(timings_), flows_};
  }

 private:
  // The links a transfer loads: its whole route, or one leg of it.
  std::span<const LinkId> links_of(const Transfer& tr) {
    const Route& r = graph_.route(tr.src, tr.dst);
    std::span<const LinkId> links(r.links);
    if (tr.leg == TransferLeg::ToSwitch && !links.empty()) return links.first(links.size() - 1);
    if (tr.leg == TransferLeg::FromSwitch && !links.empty()) return links.last(1);
    return links;
  }

  [[nodiscard]] Time latency_of(const Transfer& tr, std::span<const LinkId> links) const {
    const auto& topo = graph_.topology();
    if (tr.pipelined) return Time{};  // streams behind the slice that paid it
    if (opt_.cost.protocol_latency) {
      return opt_.cost.step_latency[static_cast<std::size_t>(route_class(topo, links))];
    }
    Time sum{};
    for (LinkId l : links) sum += topo.links[l].latency;
    return sum;
  }

  void start(TransferId t, Time now) {
    if (opt_.record_timings) timings_[t].start = now;
    const Transfer& tr = s_.transfer(t);
    if (tr.kind == TransferKind::Join) {
      finish(t, now);
      return;
    }
    const Time latency = latency_of(tr, links_of(tr));
    const Time begin = now + latency;
    if (latency.ps == 0) {
      launch(t, begin);
    } else {
      queue_.schedule(begin, [this, t, begin] { launch(t, begin); });
    }
  }

  void launch(TransferId t, Time now) {
    const Transfer& tr = s_.transfer(t);
    Bytes wire = tr.bytes;
    if (opt_.cost.wire_inflation != 1.0) {
      wire.count = static_cast<std::int64_t>(std::ceil(static_cast<double>(tr.bytes.count) * opt_.cost.wire_inflation));
    }
    const FlowId f = net_.start_flow(now, links_of(tr), wire, opt_.cost.flow_cap);
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
  EventQueue queue_;
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
