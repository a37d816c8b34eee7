// NCCL's rules and costs for CollNet Direct and Chain (sim/algo/collnet.hpp), which
// collective_cost applies: where NCCL runs them, their channels and chunks, and Direct's
// arity latency. The flat `sharp` on a star of hosts is not CollNet here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/algo/collective.hpp"
#include "sim/coll/cost_model.hpp"

namespace collsim {

// Why NCCL would not run CollNet `algo` (Direct: `direct`) here, or nullopt: one host, more
// than 8 GPUs a host, no NVSwitch (Direct), a protocol other than Simple, no NCCL graph.
[[nodiscard]] std::optional<std::string> collnet_unusable(const TopologyFacts& facts, std::string_view algo, bool direct,
                                                          Protocol p, const NcclGraph* graph);

// Sets cost's channels (connect.cc's, half as many again on NVLink hosts of several GPUs)
// and, unless the user gave one, the pipeline slice from enqueue.cc's chunk sizing.
void set_collnet_channels(const TopologyFacts& facts, const Collective& c, bool direct, const ProtocolModel& model,
                          const CostOverrides& user, const NcclGraph& graph, CollectiveCost& cost);

// tuning.cc: CollNetDirect's 0.4 us of arity serialisation per local peer, each way.
[[nodiscard]] Time collnet_direct_arity_latency(const TopologyFacts& facts);

}  // namespace collsim
