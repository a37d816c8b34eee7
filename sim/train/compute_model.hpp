// Compute times of a workload on a device: per-layer forward/backward (measured times as
// given, or FLOPs / (peak x efficiency)), memory-bound kernels (bytes / HBM bandwidth) and
// the optimizer step. All times in ps.
#pragma once

#include <vector>

#include "sim/train/device_catalogue.hpp"
#include "sim/train/workload.hpp"

namespace collsim {

struct ComputeModel {
  DeviceSpec device;
  std::string precision;   // used for FLOPs layers
  double efficiency = 0.5; // fraction of peak FLOP/s reached by layers
  double speed = 1.0;      // this GPU against a nominal one (0.5: a straggler at half speed):
                           // every kernel time is divided by it, measured ones included

  [[nodiscard]] Time forward(const Layer& l) const;
  [[nodiscard]] Time backward(const Layer& l) const;
  // A memory-bound kernel moving `traffic` bytes through HBM at the datasheet bandwidth.
  [[nodiscard]] Time memory(Bytes traffic) const;
  [[nodiscard]] Time flops(double f) const;
  [[nodiscard]] Time optimizer(const Workload& w) const;

 private:
  [[nodiscard]] Time at_speed(Time t) const;
};

// The workload's own precision and efficiency on `device`.
[[nodiscard]] ComputeModel make_compute_model(const Workload& w, const DeviceSpec& device);

}  // namespace collsim
