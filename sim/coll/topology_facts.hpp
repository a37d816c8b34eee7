// What the cost model needs to know about a topology: the ranks' hosts, the GPU
// generation (and the catalogue entry of the oldest GPU), whether ranks share an
// NVSwitch, and each rank's injection bandwidth.
#pragma once

#include <optional>
#include <vector>

#include "sim/coll/protocol.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// The host CPU as an NCCL communicator sees it (init.cc: comm->cpuArch and cpuVendor, each
// rank's first CPU, MIXED where ranks differ).
struct CommCpu {
  bool known = false;  // every rank's host has a CPU node that names its platform
  CpuArch arch = CpuArch::X86;
  CpuVendor vendor = CpuVendor::Intel;
  bool mixed_arch = false;
  bool mixed_vendor = false;
  // Every rank's host AMD (an x86 vendor, so the architecture is not mixed either).
  [[nodiscard]] bool amd() const { return known && !mixed_vendor && vendor == CpuVendor::Amd; }
  [[nodiscard]] bool power() const { return known && !mixed_arch && arch == CpuArch::Power; }
};

struct TopologyFacts {
  std::vector<int> host_of_rank;  // host label per rank (Node::host, else the node itself)
  int hosts = 1;
  int max_ranks_per_host = 1;
  bool one_rank_per_host = true;
  std::optional<GpuArch> arch;   // NCCL's row of `gpu`; none if no rank names a GPU model
  const GpuSpec* gpu = nullptr;  // the ranks' catalogue GPU of lowest compute capability (NCCL's minimum)
  bool mixed_compute = false;    // ranks' GPUs of different compute capabilities (NCCL's min != max)
  bool nvswitch = false;         // every rank's node has a link of kind nvswitch
  // Every rank's node links only to one network switch, the same for all: a star of hosts,
  // where a rank's contribution reaches the switch in one link (what `sharp` models).
  bool one_switch_star = false;
  Bandwidth injection;           // min over ranks of the sum of the rank node's outgoing links
  Bandwidth nvlink;              // min over ranks of the sum of its outgoing NVLink/NVSwitch links
  Time net_latency;              // the largest NIC plugin latency (Node::net_latency): NCCL's latencyInter
  CommCpu cpu;                   // the ranks' host CPUs
};

// `facts.gpu`, or the H100 when no rank names a model (the cost model's Hopper default).
[[nodiscard]] const GpuSpec& model_gpu(const TopologyFacts& facts);

// `hosts_override`: group ranks into that many contiguous hosts instead of Node::host.
[[nodiscard]] TopologyFacts topology_facts(const Topology& topo, std::optional<int> hosts_override = {});

}  // namespace collsim
