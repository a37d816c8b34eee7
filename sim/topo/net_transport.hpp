// What a NIC's network transport adds to every network step: the latency its NCCL net
// plugin reports (ncclNetProperties_t::latency, us). NCCL's channel search copies it into
// the channel graph (search.cc: graph->latencyInter = net->net.latency) and its tuning
// model adds it to each network step's hwLat, twice for Simple (tuning.cc: "Also add the
// flush extra latency"). NCCL's own transports report 0; a plugin over a slower transport
// reports its figure. A named transport also says whether it reads and writes GPU memory
// (NCCL_PTR_CUDA in its ptrSupport: GPUDirect RDMA); without it NCCL stages every transfer
// between a GPU and the NIC through host memory (paths.cc, ncclTopoCheckGdr).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/json_fields.hpp"
#include "sim/core/units.hpp"

namespace collsim {

struct NetTransport {
  std::string_view name;    // as a topology file spells it ("net_latency": "efa-p5")
  double latency_us;        // what the plugin reports
  bool gpu_direct;          // NCCL_PTR_CUDA in its ptrSupport (GPUDirect RDMA)
  std::string_view source;  // where the figures are published
};

[[nodiscard]] std::span<const NetTransport> net_transports();

// What a topology's "net_latency" says of a NIC: the plugin's latency and, where it names
// a transport, whether that transport has GPUDirect RDMA (a bare time does not say).
struct NetSetting {
  Time latency;
  std::optional<bool> gpu_direct;
};

// The optional field `key` of `f`: a transport's name or a time ("75us", at most 10 ms).
// Anything else fails through `f` (file, pointer, value, what was expected).
[[nodiscard]] std::optional<NetSetting> optional_net_latency(JsonFields& f, std::string_view key);

}  // namespace collsim
