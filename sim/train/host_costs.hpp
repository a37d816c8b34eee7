// What the host CPU pays to drive a GPU training step: a launch per kernel (each layer's
// forward and backward, DDP's gradient copies, casts, the optimizer) and per collective
// (the process group's enqueue and its kernel launch). One host thread launches them in
// program order from the step's start; a task never starts on its GPU stream before it
// is launched (stream_program.hpp), so steps made of many short kernels become
// launch-bound. A captured CUDA graph replays the whole step with one graph launch.
#pragma once

#include "sim/train/device_catalogue.hpp"
#include "sim/train/stream_program.hpp"

namespace collsim {

struct HostCosts {
  Time kernel_launch;      // CPU time per kernel launch
  Time collective_launch;  // CPU time per collective (process group + enqueue + kernel launch)
  bool cuda_graph = false; // the step is a captured CUDA graph: one launch of kernel_launch
                           // replaces every per-kernel and per-collective launch
};

// What the topology says about one GPU's path to its host (for an offloaded optimizer;
// host_link.hpp reads it from a topology).
struct HostLink {
  Bandwidth bandwidth;  // GPU <-> host memory, each direction, shared as on the host
  // The GPU's share of its nearest CPU socket's DRAM peak (split over the host's GPUs
  // nearest to that socket); zero when the topology does not give it.
  Bandwidth memory{};
};

// Launch of one CUDA kernel from an eager framework, back to back (NVIDIA, "Getting
// Started with CUDA Graphs", 2019: launch-bound back-to-back kernels on a V100 ran at about
// 3-4 us each; the figure is the host CPU and driver's, not the GPU generation's).
inline constexpr double kKernelLaunchUs = 4.0;

// The defaults for a device: a GPU of the catalogue launches each kernel in
// kKernelLaunchUs and each NCCL collective in `collective_launch` (the NCCL model's
// ProtocolModel::launch_overhead); a device outside the GPU catalogue (CPU ranks of the
// test bed) has no launch costs.
[[nodiscard]] HostCosts default_host_costs(const DeviceSpec& device, Time collective_launch);

// Sets each task's `launch`: kernel_launch for compute tasks that run a kernel (work > 0,
// not the host-side "graph_walk") and for hook kernels on the communication stream
// (category "hook"), collective_launch for every collective; with
// cuda_graph, one kernel_launch on the task the host launches first and nothing else.
void assign_launch_costs(StreamProgram& p, const HostCosts& h);

}  // namespace collsim
