#include "sim/train/compute_model.hpp"

namespace collsim {

Time ComputeModel::flops(double f) const {
  if (f <= 0) return Time{};
  return Time::from_seconds(f / (device.peak_flops(precision) * efficiency));
}

Time ComputeModel::forward(const Layer& l) const {
  return l.compute.forward_time ? *l.compute.forward_time : flops(l.compute.forward_flops);
}

Time ComputeModel::backward(const Layer& l) const {
  return l.compute.backward_time ? *l.compute.backward_time : flops(l.compute.backward_flops);
}

Time ComputeModel::memory(Bytes traffic) const { return transfer_time(traffic, device.hbm_bandwidth); }

Time ComputeModel::optimizer(const Workload& w) const {
  if (w.optimizer.time) return *w.optimizer.time;
  const double bytes = w.optimizer.memory_bytes_per_param * static_cast<double>(w.parameter_count());
  return memory(Bytes{static_cast<std::int64_t>(bytes)});
}

ComputeModel make_compute_model(const Workload& w, const DeviceSpec& device) {
  return ComputeModel{device, w.precision, w.efficiency};
}

}  // namespace collsim
