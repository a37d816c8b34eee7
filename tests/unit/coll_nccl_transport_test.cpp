// NCCL's transports inside a host (paths.cc: ncclTopoCheckP2p, ncclTopoCheckGdr): P2P or
// SHM between GPUs, GPUDirect RDMA or host-memory staging between a GPU and a NIC, the
// knobs NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL, and what the diverted
// routes cost, derived by hand on the PCIe box (two GPUs per PCIe switch), the RTX 4090
// box (no PCIe peer access), the RTX 2080 Ti NVLink bridge and a two-host PCIe pair.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl/transport.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/nccl_graph_summary.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

constexpr Bytes kGiB1{std::int64_t{1} << 30};

ProtocolModel with_env(std::string_view env) {
  ProtocolModel m = nccl_default_model();
  apply_nccl_env(parse_nccl_env(env, "--nccl-env"), m);
  return m;
}

NcclGraph search(const Topology& topo, std::string_view env) {
  LinkGraph graph(topo);
  auto g = search_nccl_ring(graph, topology_facts(topo).host_of_rank, nccl_search_options(with_env(env)));
  REQUIRE(g.has_value());
  return *g;
}

int count(const std::vector<std::vector<bool>>& m) {
  int n = 0;
  for (const auto& row : m) n += static_cast<int>(std::count(row.begin(), row.end(), true));
  return n;
}

Time ring_time(const Topology& topo, Bytes size, std::string_view env, const std::string& algo = "ring") {
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {algo};
  req.protocols = {Protocol::Simple};
  req.model = with_env(env);
  return predict_collective(graph, Collective{CollectiveOp::AllReduce, topo.rank_count(), 0, size}, req).time;
}

// Two hosts, each one GPU and one 400 Gb/s NIC under one PCIe switch below a CPU; 32 GB/s
// PCIe links, NCCL's 32 x 0.75 x 130 / 128 = 24.4 GB/s.
// `net` is the NIC's network link kind; `net_latency`, when given, its NIC's "net_latency".
Topology two_pcie_hosts(const std::string& model, const std::string& net = "ib",
                        const nlohmann::json& net_latency = nullptr) {
  nlohmann::json nodes = nlohmann::json::array({{{"id", "fabric"}, {"kind", "switch"}}});
  nlohmann::json links = nlohmann::json::array();
  auto pcie = [](std::string a, std::string b) {
    return nlohmann::json{{"endpoints", {a, b}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "250ns"}};
  };
  for (std::string h : {"a", "b"}) {
    nodes.push_back({{"id", h}, {"kind", "host"}});
    nodes.push_back({{"id", h + "cpu"}, {"kind", "cpu"}, {"host", h}});
    nodes.push_back({{"id", h + "sw"}, {"kind", "pcie_switch"}, {"host", h}});
    nodes.push_back({{"id", h + "gpu"}, {"kind", "gpu"}, {"model", model}, {"host", h}});
    nodes.push_back({{"id", h + "nic"}, {"kind", "nic"}, {"host", h}});
    if (!net_latency.is_null()) nodes.back()["net_latency"] = net_latency;
    links.push_back(pcie(h + "cpu", h + "sw"));
    links.push_back(pcie(h + "gpu", h + "sw"));
    links.push_back(pcie(h + "nic", h + "sw"));
    links.push_back(
        {{"endpoints", {h + "nic", "fabric"}}, {"kind", net}, {"bandwidth", "400Gbps"}, {"latency", "500ns"}});
  }
  return load_topology_json({{"name", "two-pcie-hosts"}, {"nodes", nodes}, {"links", links}}, "two-pcie-hosts.json");
}

TEST_CASE("NCCL_P2P_DISABLE sends PCIe-switch neighbours through the CPU", "[coll][nccl][transport]") {
  // pcie-8gpu's first socket (ranks 0-3): two PCIe Gen4 switches of two GPUs (NCCL's
  // 32 x 0.75 x 130 / 128 = 24.4 GB/s per direction on every PCIe link) under one Xeon
  // (Ice Lake: NCCL's Intel class SKL). The ring 0..3 crosses between the switches
  // through the CPU twice (1->2 and 3->0, path PHB), where NCCL charges PCIe 6/5 of the
  // channel's speed (the Intel root complex); 0->1 and 2->3 turn inside their switch.
  Topology box = load_topology_file(test::shipped_topology("pcie-8gpu.json"));
  box.ranks.resize(4);
  // NCCL_P2P_LEVEL=SYS: P2P everywhere. GPU 1's link up carries 1->2 at 1.2 s: s <= 20.3,
  // so 20 GB/s, one channel (two of 12 would need 2 x 14.4).
  const NcclGraph p2p = search(box, "NCCL_P2P_LEVEL=SYS");
  CHECK(count(p2p.shm) == 0);
  CHECK(p2p.channels == 1);
  CHECK(p2p.speed_gbps == Approx(20));
  // NCCL's default on an Intel host (P2P up to PXB): the 8 ordered pairs across the
  // switches are SHM, on the route through the CPU they took anyway: the same ring.
  const NcclGraph def = search(box, "");
  CHECK(def.p2p_level == PathType::Pxb);
  CHECK(count(def.shm) == 8);
  CHECK_FALSE(def.shm[0][1]);
  CHECK(def.speed_gbps == Approx(20));
  // Without P2P, 0->1 goes up to the CPU and down again: switch 0's uplink carries 0->1
  // and 1->2 upward, 2 x 1.2 s <= 24.4: one channel of 10 GB/s, half the bandwidth.
  const NcclGraph shm = search(box, "NCCL_P2P_DISABLE=1");
  CHECK(count(shm.shm) == 12);
  CHECK(shm.channels == 1);
  CHECK(shm.speed_gbps == Approx(10));
  const Time t_p2p = ring_time(box, kGiB1, "");
  const Time t_shm = ring_time(box, kGiB1, "NCCL_P2P_DISABLE=1");
  CHECK(t_shm.seconds() / t_p2p.seconds() == Approx(2.0).epsilon(0.02));
  CHECK(ring_time(box, kGiB1, "NCCL_P2P_LEVEL=PIX").ps == t_p2p.ps);
  // topo nccl prints NCCL's path types after the diversion: PHB between switch neighbours.
  const NcclGraphSummary s = summarize_nccl_graph(box, with_env("NCCL_P2P_DISABLE=1"));
  CHECK(s.gpu_gpu[0][1] == PathType::Phb);
  CHECK(summarize_nccl_graph(box).gpu_gpu[0][1] == PathType::Pix);
  CHECK(summarize_nccl_graph(box).gpu_gpu[0][2] == PathType::Phb);
}

TEST_CASE("NCCL's P2P level by host CPU: PXB, SYS for two GPUs on AMD", "[coll][nccl][transport]") {
  // paths.cc (NCCL 2.23 and later): P2P across CPU host bridges only between the two GPUs
  // of an AMD host; a host that names no CPU takes the common default.
  CHECK(nccl_default_p2p_level(HostCpu::Amd, 2) == PathType::Sys);
  CHECK(nccl_default_p2p_level(HostCpu::Amd, 8) == PathType::Pxb);
  CHECK(nccl_default_p2p_level(HostCpu::IntelSapphireRapids, 2) == PathType::Pxb);
  CHECK(nccl_default_p2p_level(HostCpu::Arm, 2) == PathType::Pxb);
  CHECK(nccl_default_p2p_level(std::nullopt, 2) == PathType::Pxb);
}

TEST_CASE("GPUs without PCIe peer access use SHM; NVLink keeps P2P", "[coll][nccl][transport]") {
  // The RTX 4090 box: every pair SHM by the driver (catalogue), on routes through the root
  // complex the P2P ones took as well (202.89 us at 1 MiB either way).
  const Topology ada = load_topology_file(test::dev_nccl_topology("rtx4090x8_1node_pcie_nop2p_vs_p2p_allreduce"));
  CHECK(count(search(ada, "").shm) == 56);
  // Two RTX 2080 Ti on an NVLink bridge (2 x 25 GB/s, NCCL's 2 x 20): P2P over NVLink.
  // Disabled, the pair goes over PCIe Gen3 through the CPU: NCCL's 12 GB/s, which the
  // topology's rounded lane rate (16 x 0.984615 GB/s) leaves a hair under, so 10.
  const Topology turing = load_topology_file(test::dev_nccl_topology("rtx2080ti_x2_nvlink_bridge_allgather_oldformat"));
  const NcclGraph nvl = search(turing, "");
  CHECK(count(nvl.shm) == 0);
  CHECK(nvl.type_intra == PathType::Nvl);
  const NcclGraph off = search(turing, "NCCL_P2P_DISABLE=1");
  CHECK(count(off.shm) == 2);
  CHECK(off.type_intra == PathType::Phb);
  CHECK(off.speed_gbps == Approx(10));
  CHECK(search(turing, "NCCL_P2P_LEVEL=NVL").type_intra == PathType::Nvl);
}

TEST_CASE("Without GPUDirect RDMA the network leg is staged through the CPU", "[coll][nccl][transport]") {
  // GPU and NIC under one switch (PIX <= PXB): GPUDirect RDMA, one channel at 24 GB/s
  // (the PCIe figure, below the NIC's 50).
  const Topology a100 = two_pcie_hosts("A100");
  const NcclGraph gdr = search(a100, "");
  CHECK(count(gdr.staged) == 0);
  CHECK(gdr.type_inter == PathType::Pix);
  CHECK(gdr.channels * gdr.speed_gbps == Approx(24));
  // NCCL_NET_GDR_LEVEL=LOC: data goes GPU -> CPU memory -> NIC, and the switch's uplink
  // carries both directions' data up and down: 2 x 12 <= 24.4, one channel at 12.
  const NcclGraph host = search(a100, "NCCL_NET_GDR_LEVEL=LOC");
  CHECK(count(host.staged) == 1);
  CHECK(host.type_inter == PathType::Phb);
  CHECK(host.channels * host.speed_gbps == Approx(12));
  // The played hop crosses the CPU too: GPU -> switch -> CPU -> switch -> NIC, fabric, and
  // NIC -> switch -> CPU -> switch -> GPU on the other host.
  LinkGraph graph(a100);
  const auto hop = channel_hop_route(graph, host, 0, 0, 1);
  REQUIRE(hop.has_value());
  CHECK(hop->links.size() == 10);
  CHECK(channel_hop_route(graph, gdr, 0, 0, 1)->links.size() == 6);
  const Time t_gdr = ring_time(a100, kGiB1, "");
  const Time t_host = ring_time(a100, kGiB1, "NCCL_NET_GDR_LEVEL=LOC");
  CHECK(t_host.seconds() / t_gdr.seconds() == Approx(2.0).epsilon(0.02));
  // The tree's hop between the hosts' chain heads is staged the same way.
  CHECK(tree_hop_route(graph, host, 0, 1, 0)->links.size() == 10);
  const Time tree_gdr = ring_time(a100, kGiB1, "", "tree");
  const Time tree_host = ring_time(a100, kGiB1, "NCCL_NET_GDR_LEVEL=LOC", "tree");
  CHECK(tree_host.seconds() / tree_gdr.seconds() > 1.9);
  // GeForce has no GPUDirect RDMA (catalogue): staged by default.
  CHECK(count(search(two_pcie_hosts("RTX 4090"), "").staged) == 1);
  CHECK(count(search(two_pcie_hosts("RTX 4090"), "NCCL_NET_GDR_LEVEL=SYS").staged) == 1);
}

TEST_CASE("A NIC on Ethernet runs NCCL's socket transport: host memory only", "[coll][nccl][transport]") {
  // net_socket.cc: ptrSupport = NCCL_PTR_HOST. The GPU sits next to the NIC (PIX), yet its
  // data goes GPU -> CPU memory -> NIC, as under NCCL_NET_GDR_LEVEL=LOC above: one channel
  // at 12 GB/s, twice the time of the same hosts on InfiniBand (the 400 Gb/s Ethernet
  // link's ~48 GB/s of payload is not the limit; the switch's uplink is).
  const Topology ib = two_pcie_hosts("A100");
  const Topology eth = two_pcie_hosts("A100", "ethernet");
  const NcclGraph socket = search(eth, "");
  CHECK(count(socket.staged) == 1);
  CHECK(socket.type_inter == PathType::Phb);
  CHECK(socket.channels * socket.speed_gbps == Approx(12));
  CHECK(ring_time(eth, kGiB1, "").seconds() / ring_time(ib, kGiB1, "").seconds() == Approx(2.0).epsilon(0.02));
  LinkGraph eth_graph(eth), ib_graph(ib);
  CHECK_FALSE(nic_gpu_direct(eth_graph, *eth.find("anic")));
  CHECK(nic_gpu_direct(ib_graph, *ib.find("anic")));
  CHECK(summarize_nccl_graph(eth).nic_gpu_direct == std::vector<bool>{false});
  CHECK(summarize_nccl_graph(ib).nic_gpu_direct == std::vector<bool>{true});
  // A transport named by net_latency wins over the link: GPUDirect-TCPXO over Ethernet reads
  // and writes GPU memory; TCP sockets or p3dn's EFA over any link do not (aws-ofi-nccl:
  // .gdr_required = false); a bare time names no transport, so the link decides.
  CHECK(count(search(two_pcie_hosts("A100", "ethernet", "tcpxo"), "").staged) == 0);
  CHECK(count(search(two_pcie_hosts("A100", "ib", "socket"), "").staged) == 1);
  CHECK(count(search(two_pcie_hosts("A100", "roce", "efa-p3dn"), "").staged) == 1);
  CHECK(count(search(two_pcie_hosts("A100", "roce", "efa-p4d"), "").staged) == 0);
  CHECK(count(search(two_pcie_hosts("A100", "ethernet", "12us"), "").staged) == 1);
  CHECK(count(search(two_pcie_hosts("A100", "roce", "12us"), "").staged) == 0);
}

}  // namespace
}  // namespace collsim
