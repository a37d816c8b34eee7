// Gloo on CUDA tensors (ProcessGroupGloo's AsyncAllreduceCUDAWork and its broadcast
// counterpart): the tensor is copied to pinned host memory, reduced on the CPU over Gloo's
// transport, and copied back; each copy crosses the GPU's PCIe link while the collective
// waits. So a collective of S bytes costs its network time plus 2 S / (PCIe rate), the rate
// being the GPU catalogue's PCIe generation and lanes (128b/130b payload per lane).
// Not modelled yet: the CPU's reduction rate and Gloo's loopback TCP between ranks of one
// host (its ring runs on the topology's routes).
#pragma once

#include <optional>

#include "sim/train/ddp_timeline.hpp"

namespace collsim {

// The GPU's PCIe rate per direction; nullopt for a device outside the GPU catalogue.
[[nodiscard]] std::optional<Bandwidth> gpu_pcie_rate(const DeviceSpec& device);

// `network` with the copies when `backend` is Gloo and the device a GPU of the catalogue
// (CPU ranks hold their tensors in host memory: nothing to copy); else `network`.
[[nodiscard]] CollectiveCostFn with_gloo_copies(CollectiveCostFn network, DdpBackend backend, const DeviceSpec& device);

// `network` with the two copies added per collective.
[[nodiscard]] CollectiveCostFn gloo_cuda_cost(CollectiveCostFn network, Bandwidth pcie);

}  // namespace collsim
