// NCCL's tuning rules that key on the host CPU (tuning.cc): the LL cap's row across hosts
// (AMD or mixed vendors: row 1, else row 0), the net overhead that floors a multi-host
// ring's intra-host steps (2 us on AMD x86, 1 us elsewhere) and POWER's Tree/Simple PCI
// latency; each figure derived by hand.
#include <catch2/catch.hpp>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/dgx_a100_hosts.hpp"

namespace collsim {
namespace {

TEST_CASE("the communicator's CPU: each rank's first CPU, mixed where they differ", "[coll][host_cpu]") {
  const TopologyFacts amd = topology_facts(test::dgx_a100_hosts(2, "epyc-7002"));
  CHECK(amd.cpu.known);
  CHECK(amd.cpu.amd());
  CHECK(nccl_ll_cpu_row(amd.cpu) == 1);
  const TopologyFacts intel = topology_facts(test::dgx_a100_hosts(2, "xeon-cascade-lake"));
  CHECK_FALSE(intel.cpu.amd());
  CHECK(nccl_ll_cpu_row(intel.cpu) == 0);
  // One AMD host beside one Intel host: NCCL's MIXED vendor takes row 1, but the net
  // overhead only on an all-AMD communicator.
  Topology mixed = test::dgx_a100_hosts(2, "epyc-7002");
  for (Node& n : mixed.nodes) {
    if (n.kind == NodeKind::Cpu && n.id.rfind("h1/", 0) == 0) n.platform = HostCpu::IntelSkylake;
  }
  const TopologyFacts m = topology_facts(mixed);
  CHECK(m.cpu.mixed_vendor);
  CHECK_FALSE(m.cpu.amd());
  CHECK(nccl_ll_cpu_row(m.cpu) == 1);
  // A host whose CPU names no platform: unknown, NCCL's Intel-like defaults.
  for (Node& n : mixed.nodes) n.platform.reset();
  const TopologyFacts none = topology_facts(mixed);
  CHECK_FALSE(none.cpu.known);
  CHECK(nccl_ll_cpu_row(none.cpu) == 0);
}

TEST_CASE("LL's cap across hosts follows the CPU: 22.5 GB/s on two AMD hosts, 39 on Intel", "[coll][host_cpu]") {
  // tuning.cc llMaxBws, column N2: row 0 (Intel) 39.0, row 1 (AMD) 22.5. A ring all-reduce
  // on 2 x 8 A100 with LL: busBw = min(llMaxBw, 0.5 x channels x speed), the channels
  // (8 of 12.5 GB/s at most: 100 GB/s raw, 50 with LL's half) well above either cap.
  const ProtocolModel m = nccl_default_model();
  const Collective ar{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 20}};
  const double amd =
      collective_cost(topology_facts(test::dgx_a100_hosts(2, "epyc-7002")), ar, "ring", Protocol::LL, m).nccl_busbw_gbps;
  const double intel = collective_cost(topology_facts(test::dgx_a100_hosts(2, "xeon-cascade-lake")), ar, "ring",
                                       Protocol::LL, m)
                           .nccl_busbw_gbps;
  CHECK(amd == Approx(22.5));
  CHECK(intel == Approx(39.0));
}

TEST_CASE("POWER hosts price Tree/Simple's PCI steps as Ring/Simple's", "[coll][host_cpu]") {
  // tuning.cc: "de-penalize Tree/Simple latency on Power systems": hwLat PCI Tree/Simple
  // 4.0 us becomes Ring/Simple's 5.7 us.
  const ProtocolModel m = nccl_default_model();
  Topology t = test::dgx_a100_hosts(2, "xeon-cascade-lake");
  const Collective ar{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 20}};
  const auto pci = static_cast<std::size_t>(LinkClass::Pci);
  CHECK(collective_cost(topology_facts(t), ar, "tree", Protocol::Simple, m).step.step_latency[pci] ==
        Time::from_ns(4000));
  for (Node& n : t.nodes) {
    if (n.kind == NodeKind::Cpu) n.platform = HostCpu::Power;
  }
  const TopologyFacts power = topology_facts(t);
  CHECK(power.cpu.power());
  CHECK(collective_cost(power, ar, "tree", Protocol::Simple, m).step.step_latency[pci] == Time::from_ns(5700));
  CHECK(collective_cost(power, ar, "tree", Protocol::LL, m).step.step_latency[pci] == Time::from_ns(1000));
}

}  // namespace
}  // namespace collsim
