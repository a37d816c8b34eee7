// The hand model of the DDP timeline tests, whose every time is chosen so that timelines can
// be written down by hand: layers L0..L3 (forward order), each 1 ms forward and 2 ms backward
// (measured), each owning one fp32 parameter p_i of 250,000 elements = 1,000,000 B;
// optimizer 1 ms; HBM 1e12 B/s (a copy of 1e6 B, read + write, takes 2 us); collectives at
// 1 ns per byte; buckets: first cap 1e6 B, cap 2e6 B (b0 = {p3}, b1 = {p2, p1}, b2 = {p0}).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/train/ddp_timeline.hpp"

namespace collsim::hand {

// `owner[i]`: the parameter layer i owns (a layer may own another's, for unused-parameter tests).
inline Workload model(const std::vector<std::string>& owner = {"p0", "p1", "p2", "p3"}) {
  nlohmann::json j = {{"name", "hand"}, {"measured_on", "test"}, {"optimizer", {{"time", "1ms"}}}};
  for (int i = 0; i < 4; ++i) {
    j["parameters"].push_back({{"name", "p" + std::to_string(i)}, {"numel", 250000}, {"dtype", "float32"}, {"shape", {500, 500}}});
    j["layers"].push_back({{"name", "L" + std::to_string(i)}, {"forward_time", "1ms"}, {"backward_time", "2ms"},
                           {"params", {owner[static_cast<std::size_t>(i)]}}});
  }
  return parse_workload(j, "hand");
}

inline ComputeModel device() {
  DeviceSpec d;
  d.name = "test";
  d.hbm_bandwidth = Bandwidth{1e12};
  // PowerSGD's compression is FLOPs: without a peak its time was infinite, which wrapped
  // into a garbage time before Time::from_seconds refused it.
  d.fp32_flops = 1e15;
  return ComputeModel{d, "fp32", 1.0};
}

inline Time one_ns_per_byte(CollectiveOp, Bytes b) { return Time{b.count * 1000}; }

inline DdpOptions options() {
  DdpOptions o;
  o.buckets.first_bucket_cap = Bytes{1'000'000};
  o.buckets.bucket_cap = Bytes{2'000'000};
  return o;
}

}  // namespace collsim::hand
