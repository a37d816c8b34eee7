// How one transfer becomes a flow under a protocol's costs: which links it loads (its
// route, or one leg of it), the latency it waits first (ps), the bytes it puts on the
// wire, and its rate cap. Shared by the full replay and the fast path so both charge
// exactly the same.
#pragma once

#include <optional>
#include <span>

#include "sim/algo/schedule.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct FlowPlan {
  std::span<const LinkId> links;  // points into the LinkGraph's route cache
  Time latency;
  Bytes wire;
  std::optional<Bandwidth> cap;
};

[[nodiscard]] FlowPlan plan_flow(const Transfer& t, LinkGraph& graph, const StepCost& cost);
// The same with t's route (graph.route(t.src, t.dst)) already looked up.
[[nodiscard]] FlowPlan plan_flow(const Transfer& t, const Route& route, const Topology& topo, const StepCost& cost);

}  // namespace collsim
