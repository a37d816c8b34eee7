#include "sim/train/compute_model.hpp"

#include "sim/core/error.hpp"

namespace collsim {

Time ComputeModel::at_speed(Time t) const {
  if (speed == 1.0) return t;
  if (!(speed > 0)) throw InternalError("ComputeModel: speed must be > 0");
  return t.scaled(1.0 / speed);
}

Time ComputeModel::flops(double f) const {
  if (f <= 0) return Time{};
  return at_speed(Time::from_seconds(f / (device.peak_flops(precision) * efficiency)));
}

Time ComputeModel::forward(const Layer& l) const {
  return l.compute.forward_time ? at_speed(*l.compute.forward_time) : flops(l.compute.forward_flops);
}

Time ComputeModel::backward(const Layer& l) const {
  return l.compute.backward_time ? at_speed(*l.compute.backward_time) : flops(l.compute.backward_flops);
}

Time ComputeModel::memory(Bytes traffic) const { return at_speed(transfer_time(traffic, device.hbm_bandwidth)); }

Time ComputeModel::optimizer(const Workload& w) const {
  if (w.optimizer.time) return at_speed(*w.optimizer.time);
  const double bytes = w.optimizer.memory_bytes_per_param * static_cast<double>(w.parameter_count());
  return memory(Bytes{static_cast<std::int64_t>(bytes)});
}

ComputeModel make_compute_model(const Workload& w, const DeviceSpec& device) {
  return ComputeModel{device, w.precision, w.efficiency};
}

}  // namespace collsim
