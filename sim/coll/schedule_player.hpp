// Plays a Schedule on a topology: each transfer starts when all its dependencies have
// finished, pays a latency (its route's, or a protocol's per-step latency), then moves
// its bytes (inflated by the protocol's wire overhead, optionally rate-capped) as a flow
// that shares links max-min fairly with every other flow in flight. Times are int64 ps.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/algo/generated_schedule.hpp"
#include "sim/algo/schedule.hpp"
#include "sim/coll/link_class.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct TransferTiming {
  Time start;  // dependencies met
  Time end;    // last byte delivered
};

// What a protocol adds to each transfer. The default is "ideal": route latency per
// transfer, payload bytes on the wire, no cap. Either way a pipelined slice
// (Transfer::pipelined) pays no latency: it streams behind the slice that paid it.
struct StepCost {
  // true: a transfer pays step_latency[class of its route] instead of the route's latency
  // (NCCL's hwLat is end to end, wire included).
  bool protocol_latency = false;
  std::array<Time, kLinkClasses> step_latency{};
  // Set (with protocol_latency): every step pays this, whatever its route's class. A ring
  // across hosts gets NCCL's ring latency spread evenly over its steps (cost_model.hpp).
  std::optional<Time> uniform_step_latency;
  double wire_inflation = 1.0;        // wire bytes per payload byte (1 / efficiency), >= 1
  std::optional<Bandwidth> flow_cap;  // per-flow wire rate cap (a channel's bandwidth)
  // A ToSwitch/FromSwitch leg's cap instead of flow_cap, when set: NVLSTree's NVLS legs
  // are capped by the channel's NVLS share while its network legs run at the links' rates.
  std::optional<Bandwidth> switch_leg_cap;
  // The cap of a transfer on `leg`.
  [[nodiscard]] const std::optional<Bandwidth>& cap_of(TransferLeg leg) const {
    return leg != TransferLeg::EndToEnd && switch_leg_cap ? switch_leg_cap : flow_cap;
  }
};

struct LinkScenario;

struct PlayOptions {
  bool record_timings = false;
  StepCost cost;
  const LinkScenario* scenario = nullptr;  // link events during the play (link_scenario.hpp)
  // When each rank enters the collective (empty: all at 0). A transfer starts no earlier
  // than both its ranks have entered: NCCL's sender needs the receiver's kernel running
  // (its buffer ready) before data moves.
  std::span<const Time> rank_arrival;
};

struct PlayResult {
  Time duration;                        // last transfer's end (0 for an empty schedule)
  std::vector<TransferTiming> timings;  // per transfer, when record_timings
  std::uint64_t flows = 0;
};

[[nodiscard]] PlayResult play_schedule(const Schedule& schedule, LinkGraph& graph, const PlayOptions& options = {});
// The same replay of a schedule computed on demand: identical results, without storing
// the schedule (memory: a byte per transfer, plus the transfers in flight). Throws
// LimitError, with the figure, past 2^32 - 2 transfers or the schedule memory limit.
[[nodiscard]] PlayResult play_generated(const GeneratedSchedule& schedule, LinkGraph& graph,
                                        const PlayOptions& options = {});

}  // namespace collsim
