#include "sim/train/host_costs.hpp"

#include "sim/topo/gpu_catalogue.hpp"

namespace collsim {

HostCosts default_host_costs(const DeviceSpec& device, Time collective_launch) {
  HostCosts h;
  if (find_gpu(device.name) == nullptr) return h;
  h.kernel_launch = Time::from_seconds(kKernelLaunchUs * 1e-6);
  h.collective_launch = collective_launch;
  return h;
}

void assign_launch_costs(StreamProgram& p, const HostCosts& h) {
  for (auto& t : p.compute) {
    const bool kernel = t.work.ps > 0 && t.category != "graph_walk";
    t.launch = kernel && !h.cuda_graph ? h.kernel_launch : Time{};
  }
  // A hook kernel or a host copy on the communication stream (category "hook", "offload")
  // is one launch, not a collective's.
  for (auto& c : p.comm) {
    const bool kernel = c.category == "hook" || c.category == "offload";
    c.launch = h.cuda_graph ? Time{} : kernel ? h.kernel_launch : h.collective_launch;
  }
  if (!h.cuda_graph) return;
  // The graph launch: on what the host launches first (collectives issued at the start,
  // else the first compute task).
  for (auto& c : p.comm) {
    if (c.issued_at_start) {
      c.launch = h.kernel_launch;
      return;
    }
  }
  if (!p.compute.empty()) p.compute.front().launch = h.kernel_launch;
}

}  // namespace collsim
