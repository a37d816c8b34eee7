// NCCL's environment knobs: parsing (names, values, ranges), NCCL_ALGO / NCCL_PROTO in
// collsim's names, the channels NCCL runs under NCCL_MIN/MAX_NCHANNELS (connect.cc), and
// NCCL_CROSS_NIC in the channel search.
#include <catch2/catch.hpp>

#include <set>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"

namespace collsim {
namespace {

std::string failure(std::string_view text) {
  try {
    (void)parse_nccl_env(text, "--nccl-env");
  } catch (const ConfigError& e) {
    return e.field() + " | " + e.value() + " | " + e.expected();
  }
  return "no error";
}

ProtocolModel env_model(std::string_view env) {
  ProtocolModel m = nccl_default_model();
  apply_nccl_env(parse_nccl_env(env, "--nccl-env"), m);
  return m;
}

TEST_CASE("NCCL environment: names, lists and ranges", "[coll][nccl][env]") {
  const NcclEnv env = parse_nccl_env(
      "  NCCL_ALGO=Ring,Tree NCCL_PROTO=^LL  NCCL_MIN_NCHANNELS=16 NCCL_MAX_NCHANNELS=32 NCCL_NVLS_ENABLE=0 "
      "NCCL_CROSS_NIC=1 ",
      "--nccl-env");
  CHECK(env.algo == "ring,tree");
  CHECK(env.proto == "^ll");
  CHECK(env.min_channels == 16);
  CHECK(env.max_channels == 32);
  CHECK(env.nvls == false);
  CHECK(env.cross_nic == 1);
  CHECK(parse_nccl_env("", "--nccl-env").empty());
  CHECK(nccl_algo_list("CollNetDirect", "x") == "collnet_direct");
  CHECK(nccl_algo_list("CollNet", "x") == "collnet_direct,collnet_chain,sharp");
  CHECK(nccl_algo_list("nvls", "x") == "nvls");
  CHECK(nccl_proto_list("LL128,Simple", "x") == "ll128,simple");
  CHECK(parse_nccl_env("NCCL_NVLS_ENABLE=2", "o").nvls == true);

  CHECK(nccl_algo_list("PAT", "x") == "pat");
  CHECK(nccl_algo_list("^PAT,NVLS", "x") == "^pat,nvls");
  CHECK(nccl_algo_list("NVLSTree", "x") == "nvls_tree");
  CHECK(failure("NCCL_ALGO=Ring,").find("an empty entry") != std::string::npos);
  CHECK(failure("NCCL_MIN_NCHANNELS=-1") == "NCCL_MIN_NCHANNELS | \"-1\" | an integer from 0 to 64 (MAXCHANNELS)");
  CHECK(failure("NCCL_MAX_NCHANNELS=8x") == "NCCL_MAX_NCHANNELS | \"8x\" | an integer from 1 to 64 (MAXCHANNELS)");
  CHECK(failure("NCCL_BUFFSIZE=1").rfind("NCCL_BUFFSIZE | \"1\" | one of NCCL_ALGO", 0) == 0);
  CHECK(failure("=1").find("NAME=VALUE") != std::string::npos);
  CHECK(failure("NCCL_CROSS_NIC=1 NCCL_CROSS_NIC=0").find("each variable once") != std::string::npos);

  NcclEnv a, b;
  a.min_channels = 4;
  b.min_channels = 4;
  CHECK(merge_nccl_env(a, b, "o").min_channels == 4);
  b.min_channels = 8;
  CHECK_THROWS_AS(merge_nccl_env(a, b, "o"), ConfigError);
}

TEST_CASE("NCCL_MAX_NCHANNELS keeps the first channels, NCCL_MIN_NCHANNELS copies them", "[coll][nccl][env]") {
  ProtocolModel m = nccl_default_model();
  CHECK(nccl_run_channels(12, m) == 12);
  m.max_nchannels = 8;
  CHECK(nccl_run_channels(12, m) == 8);
  // connect.cc: max first, then min, so MAX=8 MIN=16 runs 16 (copies of the first 8).
  m.min_nchannels = 16;
  CHECK(nccl_run_channels(12, m) == 16);
  m.max_nchannels.reset();
  CHECK(nccl_run_channels(24, m) == 24);
  m.min_nchannels = 0;
  CHECK(nccl_run_channels(3, m) == 3);
}

TEST_CASE("NCCL_CROSS_NIC=0 keeps every channel on its rail; 1 may leave by any NIC", "[coll][nccl][env]") {
  const Topology topo =
      load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/4x-dgx-h100-rail-8x400g-ib.json");
  LinkGraph graph(topo);
  const auto hosts = topology_facts(topo).host_of_rank;
  NcclSearchOptions o;
  o.cross_nic = 0;
  const auto same = search_nccl_ring(graph, hosts, o);
  REQUIRE(same.has_value());
  CHECK_FALSE(same->cross_nic);
  for (const NcclChannel& ch : same->per_channel) CHECK(ch.exit_nic == ch.nic);
  // With any NIC allowed the first chain found for a channel is kept (NCCL's search takes
  // the first solution): the natural order, leaving from its last GPU by the nearest NIC
  // with room, PIX, whatever NIC it entered by. Same channels and speed here, but some
  // channels now cross rails between hosts: their hop goes from host 0's exit NIC to
  // host 1's entry NIC.
  o.cross_nic = 1;
  const auto any = search_nccl_ring(graph, hosts, o);
  REQUIRE(any.has_value());
  CHECK(any->channels == same->channels);
  CHECK(any->speed_gbps == Approx(same->speed_gbps));
  CHECK(any->cross_nic);
  int crossing = 0;
  for (int c = 0; c < any->channels; ++c) {
    const NcclChannel& ch = any->per_channel[static_cast<std::size_t>(c)];
    CHECK(ch.exit_path == PathType::Pix);
    if (ch.exit_nic == ch.nic) continue;
    ++crossing;
    const auto hop = channel_hop_route(graph, *any, c, 0, 1);
    REQUIRE(hop.has_value());
    std::set<NodeIndex> nodes;
    for (LinkId l : hop->links) nodes.insert(topo.links[l].to);
    CHECK(nodes.count(any->host[0].nics[static_cast<std::size_t>(ch.exit_nic)]) == 1);
    CHECK(nodes.count(any->host[1].nics[static_cast<std::size_t>(ch.nic)]) == 1);
  }
  CHECK(crossing > 0);
}

TEST_CASE("NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL parse as NCCL reads them", "[coll][nccl][env]") {
  CHECK(env_model("NCCL_P2P_LEVEL=pxb").transports.p2p_level == PathType::Pxb);
  CHECK(env_model("NCCL_P2P_LEVEL=3").transports.p2p_level == PathType::Phb);   // legacy numbering
  CHECK(env_model("NCCL_P2P_LEVEL=9").transports.p2p_level == PathType::Sys);   // above 4: SYS
  CHECK(env_model("NCCL_P2P_LEVEL=NVL").transports.p2p_level == PathType::Nvl);
  CHECK(env_model("NCCL_NET_GDR_LEVEL=PHB").transports.gdr_level == PathType::Phb);
  CHECK(env_model("NCCL_P2P_DISABLE=0").transports.p2p_level == std::nullopt);
  // NCCL_P2P_DISABLE=1 wins over a level (ncclGetLevel).
  CHECK(env_model("NCCL_P2P_DISABLE=1 NCCL_P2P_LEVEL=SYS").transports.p2p_level == PathType::Loc);
  CHECK(failure("NCCL_P2P_DISABLE=2") == "NCCL_P2P_DISABLE | \"2\" | 0 or 1 (no P2P between GPUs)");
  CHECK(failure("NCCL_P2P_LEVEL=FAR") ==
        "NCCL_P2P_LEVEL | \"FAR\" | a path type: LOC, NVL, PIX, PXB, PHB or SYS (or NCCL's legacy 0 LOC, 1 PIX, 2 PXB, "
        "3 PHB, 4 SYS)");
  CHECK(failure("NCCL_NET_GDR_LEVEL=NVL").rfind("NCCL_NET_GDR_LEVEL | \"NVL\" | a path type: LOC, PIX", 0) == 0);
  CHECK(failure("NCCL_NET_GDR_LEVEL=-1").rfind("NCCL_NET_GDR_LEVEL | \"-1\"", 0) == 0);
  CHECK(failure("NCCL_P2P_LEVEL=2x").rfind("NCCL_P2P_LEVEL | \"2x\"", 0) == 0);
}

}  // namespace
}  // namespace collsim
