#include "sim/train/ddp_startup.hpp"

#include <algorithm>
#include <map>

#include "sim/core/error.hpp"

namespace collsim {

std::vector<Bytes> module_state_chunks(const Workload& w, std::int64_t limit) {
  std::vector<Bytes> out;
  std::vector<DType> order;  // dtypes by first appearance, for the leftover groups
  std::map<DType, std::int64_t> group;
  const auto add = [&](DType dtype, std::int64_t bytes) {
    if (!group.contains(dtype)) order.push_back(dtype);
    auto& g = group[dtype];
    g += bytes;
    if (g >= limit) {
      out.push_back(Bytes{g});
      g = 0;
    }
  };
  for (const auto& p : w.parameters) add(p.dtype, p.bytes().count);
  for (const auto& b : w.buffers) add(b.dtype, b.numel * element_size(b.dtype));
  for (DType d : order) {
    if (group[d] > 0) out.push_back(Bytes{group[d]});
  }
  return out;
}

Time module_state_broadcast(const Workload& w, const CollectiveCostFn& cost) {
  Time t{};
  for (const Bytes chunk : module_state_chunks(w)) t += cost(CollectiveOp::Broadcast, chunk);
  return t;
}

JoinRun simulate_join(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost, const DdpOptions& o,
                      const std::vector<int>& batches) {
  if (batches.empty()) throw ConfigError("", "join", "", "a batch count per rank");
  for (int b : batches) {
    if (b < 1) throw ConfigError("", "join", std::to_string(b), "a batch count >= 1 per rank");
  }
  JoinRun r;
  r.batches = batches;
  r.steps = *std::max_element(batches.begin(), batches.end());
  DdpOptions joined = o;
  joined.join = true;
  // A shadowing rank runs the same collectives, so every step of the run costs the same.
  r.step = simulate_ddp(w, cm, cost, joined).iteration;
  r.final_sync = module_state_broadcast(w, cost);
  r.total = Time{r.step.ps * r.steps} + r.final_sync;
  for (int b : batches) r.shadow_rank_steps += r.steps - b;
  return r;
}

}  // namespace collsim
