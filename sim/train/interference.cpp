#include "sim/train/interference.hpp"

#include <algorithm>

namespace collsim {

double collective_compute_slowdown(int channels, double busbw_gb_per_s, const DeviceSpec& device) {
  double f = 0;
  if (device.sms > 0 && channels > 0) f = static_cast<double>(channels) / device.sms;
  if (device.hbm_bandwidth.bytes_per_s > 0 && busbw_gb_per_s > 0) {
    f = std::max(f, 2 * busbw_gb_per_s * 1e9 / device.hbm_bandwidth.bytes_per_s);
  }
  f = std::min(f, kMaxComputeShareLost);
  return f / (1 - f);
}

double prediction_compute_slowdown(const std::optional<CollectivePrediction>& p, const DeviceSpec& device) {
  if (!p || p->protocol == Protocol::Ideal) return 0;
  return collective_compute_slowdown(p->channels, p->busbw_gbps, device);
}

}  // namespace collsim
