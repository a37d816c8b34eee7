// How one transfer becomes a flow under a protocol's costs: which links it loads (its
// route, or one leg of it), the latency it waits first (ps), the bytes it puts on the
// wire, and its rate cap. Shared by the full replay and the fast path so both charge
// exactly the same.
#pragma once

#include <cmath>
#include <optional>
#include <span>

#include "sim/algo/schedule.hpp"
#include "sim/coll/link_class.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct FlowPlan {
  std::span<const LinkId> links;  // points into the LinkGraph's route cache
  Time latency;
  Bytes wire;
  std::optional<Bandwidth> cap;
};

// The latency a transfer waits before its bytes flow over `links` (unless it is a later
// pipelined slice): NCCL's per-step latency for the links' class, or the sum of theirs.
// `classes`, when given, is topo's class table (the same result, faster over many routes).
[[nodiscard]] Time plan_latency(std::span<const LinkId> links, const Topology& topo, const StepCost& cost,
                                const LinkClassTable* classes = nullptr);
// The bytes a payload puts on the wire under `cost`'s protocol efficiency.
[[nodiscard]] inline Bytes wire_bytes(Bytes payload, const StepCost& cost) {
  if (cost.wire_inflation == 1.0) return payload;
  return Bytes{static_cast<std::int64_t>(std::ceil(static_cast<double>(payload.count) * cost.wire_inflation))};
}

[[nodiscard]] FlowPlan plan_flow(const Transfer& t, LinkGraph& graph, const StepCost& cost);
// The same with t's route (graph.route(t.src, t.dst)) already looked up.
[[nodiscard]] FlowPlan plan_flow(const Transfer& t, const Route& route, const Topology& topo, const StepCost& cost);

}  // namespace collsim
