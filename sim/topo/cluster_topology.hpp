// A multi-node GPU cluster for DDP sweeps: H hosts, each with G GPUs on one NVSwitch and
// one NIC per GPU (GPU-NIC over PCIe), every NIC on one non-blocking switch. Bandwidths
// per direction (bytes/s), latencies one-way per link (ps).
#pragma once

#include "sim/topo/topology.hpp"

namespace collsim {

struct SweepClusterSpec {
  int hosts = 4;
  int gpus_per_host = 8;
  std::string gpu_model = "H100";
  // NVLink4 through NVSwitch: 450 GB/s per direction per H100 (datasheet "900 GB/s").
  Bandwidth nvswitch_bandwidth = Bandwidth::gb_per_s(450);
  Time nvswitch_latency = Time::from_ns(250);
  // PCIe 5.0 x16: 32 GT/s x 16 lanes with 128b/130b encoding = 63 GB/s per direction.
  Bandwidth pcie_bandwidth = Bandwidth::gb_per_s(63);
  Time pcie_latency = Time::from_ns(500);
  // One 400 Gb/s InfiniBand NDR port per GPU (ConnectX-7, as in DGX H100).
  Bandwidth nic_bandwidth = Bandwidth::gbps(400);
  Time nic_latency = Time::from_us(1);
};

// Ranks: every GPU, host by host. Node ids: host{h}, gpu{h}.{g}, nvswitch{h}, nic{h}.{g},
// switch.
[[nodiscard]] Topology make_sweep_cluster(const SweepClusterSpec& spec);

}  // namespace collsim
