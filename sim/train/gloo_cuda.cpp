#include "sim/train/gloo_cuda.hpp"

#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/server_generators.hpp"

namespace collsim {

std::optional<Bandwidth> gpu_pcie_rate(const DeviceSpec& device) {
  const GpuSpec* g = find_gpu(device.name);
  if (g == nullptr || g->pcie_generation == 0 || g->pcie_lanes == 0) return std::nullopt;
  return pcie_lane_rate(g->pcie_generation) * static_cast<double>(g->pcie_lanes);
}

CollectiveCostFn with_gloo_copies(CollectiveCostFn network, DdpBackend backend, const DeviceSpec& device) {
  if (backend != DdpBackend::Gloo) return network;
  const auto pcie = gpu_pcie_rate(device);
  return pcie ? gloo_cuda_cost(std::move(network), *pcie) : network;
}

CollectiveCostFn gloo_cuda_cost(CollectiveCostFn network, Bandwidth pcie) {
  return [network = std::move(network), pcie](CollectiveOp op, Bytes bytes) {
    const Time copy = transfer_time(bytes, pcie);
    return network(op, bytes) + copy + copy;
  };
}

}  // namespace collsim
