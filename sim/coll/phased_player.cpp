#include "sim/coll/phased_player.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "sim/coll/flow_driver.hpp"
#include "sim/coll/flow_plan.hpp"

namespace collsim {

namespace {

struct StepSolve {
  std::vector<Time> end;           // per transfer of the step
  std::vector<std::int32_t> group; // per transfer: index of its (src, dst) group
  std::vector<std::pair<std::int32_t, std::int32_t>> groups;  // (src, dst) per group
  bool independent = true;         // no link carries two groups
};

// All transfers of one step start at 0: each waits its latency, then flows.
StepSolve solve_step(const std::vector<Transfer>& step, LinkGraph& graph, const StepCost& cost) {
  StepSolve out;
  out.end.assign(step.size(), Time{});
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> group_of;
  const auto& topo = graph.topology();
  std::vector<std::int32_t> link_group(topo.links.size(), -1);
  FlowDriver driver(topo);
  for (std::size_t j = 0; j < step.size(); ++j) {
    const Transfer& t = step[j];
    const auto [it, fresh] = group_of.try_emplace({t.src, t.dst}, static_cast<std::int32_t>(out.groups.size()));
    if (fresh) out.groups.emplace_back(t.src, t.dst);
    out.group.push_back(it->second);
    const FlowPlan plan = plan_flow(t, graph, cost);
    for (LinkId l : plan.links) {
      if (link_group[l] >= 0 && link_group[l] != it->second) out.independent = false;
      link_group[l] = it->second;
    }
    driver.add(static_cast<std::uint32_t>(j), plan, Time{0});
  }
  driver.run([&out](std::uint32_t j, Time t) { out.end[j] = t; });
  return out;
}

// Max-plus recurrence over the groups of an independent step (see the header).
Time recurrence(const StepSolve& st, std::int64_t repeats) {
  const std::size_t g = st.groups.size();
  std::vector<std::int64_t> d(g, 0);
  for (std::size_t j = 0; j < st.end.size(); ++j) {
    d[static_cast<std::size_t>(st.group[j])] = std::max(d[static_cast<std::size_t>(st.group[j])], st.end[j].ps);
  }
  // Predecessors of a group: the groups sending into its source and from its source.
  std::map<std::int32_t, std::vector<std::size_t>> into, from;
  for (std::size_t i = 0; i < g; ++i) {
    from[st.groups[i].first].push_back(i);
    into[st.groups[i].second].push_back(i);
  }
  std::vector<std::vector<std::size_t>> preds(g);
  for (std::size_t i = 0; i < g; ++i) {
    const std::int32_t src = st.groups[i].first;
    if (auto it = into.find(src); it != into.end()) preds[i] = it->second;
    for (std::size_t p : from[src]) preds[i].push_back(p);
  }
  std::vector<std::int64_t> t = d, next(g);
  for (std::int64_t k = 1; k < repeats; ++k) {
    for (std::size_t i = 0; i < g; ++i) {
      std::int64_t ready = 0;
      for (std::size_t p : preds[i]) ready = std::max(ready, t[p]);
      next[i] = ready + d[i];
    }
    // Once every group advances by the same amount, it does so forever (max-plus
    // linearity): extrapolate the remaining steps exactly.
    const std::int64_t inc = next[0] - t[0];
    bool settled = true;
    for (std::size_t i = 1; i < g && settled; ++i) settled = next[i] - t[i] == inc;
    t.swap(next);
    if (settled) {
      const std::int64_t rest = repeats - 1 - k;
      std::int64_t last = 0;
      for (std::int64_t v : t) last = std::max(last, v);
      return Time{last + rest * inc};
    }
  }
  return Time{*std::max_element(t.begin(), t.end())};
}

// Replays a phase transfer by transfer: `repeats` steps, each transfer waiting for the
// previous step's transfers into and out of its source rank.
Time replay_phase(const SchedulePhase& phase, const Collective& c, LinkGraph& graph, const PlayOptions& options) {
  Schedule s(c, "phase:" + phase.name);
  std::map<std::int64_t, std::int32_t> chunk_of_bytes;
  std::vector<std::int32_t> chunk(phase.step.size());
  for (std::size_t j = 0; j < phase.step.size(); ++j) {
    const auto [it, fresh] = chunk_of_bytes.try_emplace(phase.step[j].bytes.count, 0);
    if (fresh) it->second = s.add_chunk(ChunkSpec{phase.step[j].bytes});
    chunk[j] = it->second;
  }
  std::map<std::int32_t, std::vector<TransferId>> touched;  // previous step, per rank
  for (std::int64_t k = 0; k < phase.repeats; ++k) {
    std::map<std::int32_t, TransferId> gate;  // per source rank: what it waits for
    for (auto& [rank, ids] : touched) gate.emplace(rank, ids.size() == 1 ? ids.front() : s.add_join(ids));
    std::map<std::int32_t, std::vector<TransferId>> now;
    for (std::size_t j = 0; j < phase.step.size(); ++j) {
      Transfer t = phase.step[j];
      t.chunk = chunk[j];
      t.kind = TransferKind::Copy;
      const auto g = gate.find(t.src);
      const TransferId id = g == gate.end() ? s.add(t, {}) : s.add(t, {g->second});
      now[t.src].push_back(id);
      now[t.dst].push_back(id);
    }
    touched = std::move(now);
  }
  return play_schedule(s, graph, options).duration;
}

}  // namespace

PhasedResult play_phased(const PhasedSchedule& s, LinkGraph& graph, const PlayOptions& options,
                         std::uint64_t max_replay_transfers) {
  PhasedResult result;
  result.exact = true;
  for (const SchedulePhase& phase : s.phases) {
    if (phase.step.empty() || phase.repeats == 0) continue;
    const StepSolve st = solve_step(phase.step, graph, options.cost);
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
    const auto transfers = phase.step.size() * static_cast<std::uint64_t>(phase.repeats);
    if (transfers > max_replay_transfers) {
      result.exact = false;
      result.reason = fmt::format(
          "phase \"{}\": flows of different rank pairs share links and end {} ps apart, and replaying its {} "
          "transfers exceeds the fast path's budget",
          phase.name, spread, transfers);
      return result;
    }
    result.duration += replay_phase(phase, s.collective, graph, options);
    result.flows_solved += transfers;
    ++result.phases_replayed;
  }
  return result;
}

}  // namespace collsim
