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

// All transfers of one step start at 0: each waits its latency, then flows.
StepSolve solve_step(const std::vector<Transfer>& step, LinkGraph& graph, const StepCost& cost) {
  StepSolve out;
  out.end.assign(step.size(), Time{});
  std::map<GroupKey, std::int32_t> group_of;
  const auto& topo = graph.topology();
  std::vector<std::int32_t> link_group(topo.links.size(), -1);
  std::vector<bool> shared(topo.links.size(), false);
  std::vector<double> capped_load(topo.links.size(), 0.0);  // sum of the flows' caps, bytes/s
  bool all_capped = true;
  FlowDriver driver(topo);
  for (std::size_t j = 0; j < step.size(); ++j) {
    const Transfer& t = step[j];
    const GroupKey key{t.src, t.dst, t.chunk};
    const auto [it, fresh] = group_of.try_emplace(key, static_cast<std::int32_t>(out.groups.size()));
    if (fresh) out.groups.push_back(key);
    out.group.push_back(it->second);
    const FlowPlan plan = plan_flow(t, graph, cost);
    if (!plan.cap) all_capped = false;
    for (LinkId l : plan.links) {
      if (link_group[l] >= 0 && link_group[l] != it->second) shared[l] = true;
      link_group[l] = it->second;
      if (plan.cap) capped_load[l] += plan.cap->bytes_per_s;
    }
    driver.add(static_cast<std::uint32_t>(j), plan, Time{0});
  }
  for (LinkId l = 0; l < topo.links.size() && out.independent; ++l) {
    if (shared[l] && !(all_capped && capped_load[l] <= topo.links[l].bandwidth.bytes_per_s)) out.independent = false;
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
