// NCCL's default for LL128 (tuning.cc): on only between GPUs of one compute capability
// among SM 7.0, 8.0, 9.0, 10.0, 12.0, over NVLink inside hosts; any NCCL_PROTO naming LL128
// forces it on. Derived by hand for an NVSwitch box, a PCIe box of A100s, a PCIe box of
// RTX 4090s (the development log's) and a mixed-generation pair.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

std::optional<std::string> ll128_rule(const Topology& topo) {
  LinkGraph graph(topo);
  const TopologyFacts facts = topology_facts(topo);
  const auto g = search_nccl_ring(graph, facts.host_of_rank);
  return ll128_off_by_default(facts, g ? &*g : nullptr);
}

CollectivePrediction all_reduce(const Topology& topo, Bytes size, std::string_view protocols) {
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = parse_algorithm_list("auto", CollectiveOp::AllReduce);
  req.protocols = parse_protocol_list(protocols);
  req.protocols_auto = is_auto(protocols);
  return predict_collective(graph, Collective{CollectiveOp::AllReduce, topo.rank_count(), 0, size}, req);
}

Topology rtx4090_box() {
  return load_topology_file(test::dev_nccl_topology("rtx4090x8_1node_pcie_nop2p_vs_p2p_allreduce"));
}

TEST_CASE("LL128 stays on between NVLink GPUs of SM 7.0 and 8.0", "[coll][nccl][ll128]") {
  CHECK_FALSE(ll128_rule(load_topology_file(test::shipped_topology("dgx-a100.json"))).has_value());
  CHECK_FALSE(ll128_rule(load_topology_file(test::shipped_topology("dgx1-v100.json"))).has_value());
  CHECK_FALSE(ll128_rule(load_topology_file(test::shipped_topology("4x-dgx-h100-rail-8x400g-ib.json"))).has_value());
}

TEST_CASE("LL128 is off by default on PCIe paths and on SM 8.9", "[coll][nccl][ll128]") {
  // A100 (SM 8.0) on PCIe only: the ring crosses the socket link, typeIntra SYS > NVB.
  const auto pcie = ll128_rule(load_topology_file(test::shipped_topology("pcie-8gpu.json")));
  REQUIRE(pcie.has_value());
  CHECK_THAT(*pcie, Catch::Contains("paths inside a host are SYS"));
  // RTX 4090: SM 8.9 is not among NCCL's tested compute capabilities.
  const Topology box = rtx4090_box();
  const auto ada = ll128_rule(box);
  REQUIRE(ada.has_value());
  CHECK_THAT(*ada, Catch::Contains("RTX 4090 is SM 8.9"));
  // 1 MiB on 8 ranks, 4 channels of 4 GB/s (NCCL's 16 GB/s between AMD sockets): NCCL's
  // model prices LL128 lowest (latency 14 + 14 x 2.5 us, 14.7 GB/s), but by default it
  // chooses between LL and Simple only; the ring Simple plays at 202.89 us (LL128 would
  // have played at 173.66 us).
  const CollectivePrediction dflt = all_reduce(box, Bytes{1 << 20}, "auto");
  CHECK(dflt.protocol == Protocol::Simple);
  CHECK(dflt.time.us() == Approx(202.888).epsilon(1e-4));
  // NCCL_PROTO=LL,LL128,Simple forces LL128 on.
  const CollectivePrediction forced = all_reduce(box, Bytes{1 << 20}, "ll,ll128,simple");
  CHECK(forced.protocol == Protocol::LL128);
  CHECK(forced.time.us() == Approx(173.663).epsilon(1e-4));
}

TEST_CASE("LL128 is off by default between GPUs of different compute capabilities", "[coll][nccl][ll128]") {
  const nlohmann::json j = {
      {"name", "mixed-pair"},
      {"nodes",
       {{{"id", "host"}, {"kind", "host"}},
        {{"id", "cpu0"}, {"kind", "cpu"}, {"host", "host"}},
        {{"id", "gpu0"}, {"kind", "gpu"}, {"model", "A100"}, {"host", "host"}},
        {{"id", "gpu1"}, {"kind", "gpu"}, {"model", "V100"}, {"host", "host"}}}},
      {"links",
       {{{"endpoints", {"gpu0", "cpu0"}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "250ns"}},
        {{"endpoints", {"gpu1", "cpu0"}}, {"kind", "pcie"}, {"bandwidth", "16GB/s"}, {"latency", "250ns"}},
        {{"endpoints", {"gpu0", "gpu1"}}, {"kind", "nvlink"}, {"bandwidth", "25GB/s"}, {"lanes", 2}, {"latency", "250ns"}}}}};
  const Topology topo = load_topology_json(j, "mixed-pair.json");
  const auto why = ll128_rule(topo);
  REQUIRE(why.has_value());
  CHECK_THAT(*why, Catch::Contains("differ in compute capability"));
}

}  // namespace
}  // namespace collsim
