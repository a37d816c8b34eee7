// Property test: the symbolic executor proves every (op, algorithm) pair for N = 1..33,
// 64, 100 and 1000 ranks, and hierarchical algorithms for several host shapes.
#include <catch2/catch.hpp>

#include <array>

#include <fmt/format.h>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/registry.hpp"
#include "sim/algo/symbolic_executor.hpp"

namespace collsim {
namespace {

std::vector<int> rank_counts() {
  std::vector<int> out;
  for (int n = 1; n <= 33; ++n) out.push_back(n);
  for (int n : {64, 100, 1000}) out.push_back(n);
  return out;
}

constexpr std::array<CollectiveOp, 6> kVerifiedOps{CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                                          CollectiveOp::AllGather,  CollectiveOp::Broadcast,
                                          CollectiveOp::Reduce,     CollectiveOp::AllToAll};

// An odd size, so pieces differ by a byte and remainders are exercised.
Bytes size_for(int n) { return Bytes{static_cast<std::int64_t>(n) * 24 + 5}; }

void check(const std::string& algo, CollectiveOp op, int n, const AlgorithmOptions& opt, int root = 0) {
  const Collective c{op, n, root, size_for(n)};
  const Schedule s = build_schedule(algo, c, opt);
  const Verification v = verify_schedule(s);
  INFO(fmt::format("{} {} N={} root={} channels={}: {}", algo, to_string(op), n, root, opt.channels, v.error));
  REQUIRE(v.ok);
}

void check_all_counts(const std::string& algo) {
  int pairs = 0;
  for (CollectiveOp op : kVerifiedOps) {
    if (!supports(algo, op)) continue;
    ++pairs;
    for (int n : rank_counts()) {
      AlgorithmOptions opt;
      if (n <= 100) {
        // Two channels and three pipeline slices where the schedule stays small.
        opt.channels = 2;
        opt.slice_bytes = Bytes{4};
      }
      const int root = (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce) ? n / 3 : 0;
      check(algo, op, n, opt, root);
    }
  }
  REQUIRE(pairs > 0);
}

TEST_CASE("ring verifies for every op and rank count", "[algo][verify]") { check_all_counts("ring"); }
TEST_CASE("double binary tree verifies for every rank count", "[algo][verify]") { check_all_counts("tree"); }
TEST_CASE("binary heap tree verifies for every op and rank count", "[algo][verify]") { check_all_counts("bintree"); }
TEST_CASE("parameter server verifies for every rank count", "[algo][verify]") { check_all_counts("ps"); }
TEST_CASE("sharded parameter server verifies for every rank count", "[algo][verify]") {
  check_all_counts("ps_sharded");
}
TEST_CASE("halving-doubling verifies for every rank count", "[algo][verify]") { check_all_counts("rhd"); }
TEST_CASE("recursive doubling verifies for every rank count", "[algo][verify]") { check_all_counts("rd"); }
TEST_CASE("direct verifies for every op and rank count", "[algo][verify]") { check_all_counts("direct"); }
TEST_CASE("PAT verifies for every rank count", "[algo][verify]") { check_all_counts("pat"); }
TEST_CASE("nvls and sharp verify for every rank count", "[algo][verify]") {
  check_all_counts("nvls");
  check_all_counts("sharp");
}
TEST_CASE("hierarchical ring verifies with every rank alone (one host each)", "[algo][verify]") {
  check_all_counts("hier_ring");
}

TEST_CASE("hierarchical ring verifies for hosts x ranks-per-host shapes", "[algo][verify]") {
  for (auto [hosts, per_host] : std::vector<std::pair<int, int>>{
           {1, 1}, {1, 8}, {2, 1}, {2, 4}, {4, 2}, {3, 5}, {5, 3}, {8, 8}, {16, 4}, {7, 9}, {125, 8}}) {
    AlgorithmOptions opt;
    opt.host_of_rank = block_hosts(hosts * per_host, hosts);
    check("hier_ring", CollectiveOp::AllReduce, hosts * per_host, opt);
  }
}

TEST_CASE("hierarchical ring moves the transfers its up-front size check counts", "[algo][verify]") {
  // 2 (local - 1) steps inside hosts of ranks x hosts pieces, 2 (hosts - 1) across them of
  // one per rank: 3 hosts x 4 ranks = 2 x 3 x 12 x 3 + 4 x 12 = 264 (Joins not counted).
  AlgorithmOptions opt;
  opt.host_of_rank = block_hosts(12, 3);
  const Schedule s = build_schedule("hier_ring", Collective{CollectiveOp::AllReduce, 12, 0, Bytes{1200}}, opt);
  std::size_t moved = 0;
  for (TransferId t = 0; t < s.size(); ++t) moved += s.transfer(t).kind != TransferKind::Join;
  CHECK(moved == 264);
}

TEST_CASE("hierarchical ring rejects uneven hosts", "[algo][verify]") {
  AlgorithmOptions opt;
  opt.host_of_rank = block_hosts(7, 2);  // 4 + 3 ranks
  REQUIRE_THROWS_AS(build_schedule("hier_ring", Collective{CollectiveOp::AllReduce, 7, 0, Bytes{100}}, opt),
                    std::invalid_argument);
}

TEST_CASE("NVLSTree verifies for hosts x ranks-per-host shapes, pipelined or not", "[algo][verify]") {
  for (auto [hosts, per_host] : std::vector<std::pair<int, int>>{
           {1, 1}, {1, 8}, {2, 1}, {2, 4}, {4, 2}, {3, 5}, {5, 3}, {8, 8}, {16, 4}, {7, 9}, {125, 8}}) {
    for (Bytes slice : {Bytes{0}, Bytes{8}}) {
      AlgorithmOptions opt;
      opt.host_of_rank = block_hosts(hosts * per_host, hosts);
      opt.slice_bytes = slice;
      check("nvls_tree", CollectiveOp::AllReduce, hosts * per_host, opt);
    }
  }
  // Transfers by hand, 2 hosts x 8 GPUs, one slice: each of the 8 blocks in 2 halves (one
  // per tree); per half, 7 NVLS contributions and 7 multicasts in each host, one up and one
  // down between the hosts: 16 x (2 x 7 + 2 + 2 x 7) = 480.
  AlgorithmOptions opt;
  opt.host_of_rank = block_hosts(16, 2);
  const Schedule s = build_schedule("nvls_tree", Collective{CollectiveOp::AllReduce, 16, 0, Bytes{1 << 20}}, opt);
  // (Plus 3 joins per half: each host's 7 contributions, and the root's partial + up.)
  std::size_t inter_host = 0;
  std::vector<Transfer> transfers;
  for (const Transfer& t : s.transfers()) {
    if (t.bytes.count > 0) transfers.push_back(t);
  }
  for (const Transfer& t : transfers) inter_host += (t.src < 8) != (t.dst < 8) ? 1 : 0;
  CHECK(transfers.size() == 480);
  CHECK(s.transfers().size() == 480 + 16 * 3);
  // Only local GPU j's NIC carries block j: 8 blocks x 2 halves x (up + down).
  CHECK(inter_host == 32);
  for (const Transfer& t : transfers) {
    if ((t.src < 8) != (t.dst < 8)) CHECK(t.src % 8 == t.dst % 8);
  }
  opt.host_of_rank = block_hosts(7, 2);
  REQUIRE_THROWS_AS(build_schedule("nvls_tree", Collective{CollectiveOp::AllReduce, 7, 0, Bytes{100}}, opt),
                    std::invalid_argument);
}

TEST_CASE("double binary tree verifies with intra-host chains, even and uneven", "[algo][verify]") {
  for (int n : {2, 5, 8, 17, 33, 64, 100, 1000}) {
    for (int hosts : {1, 2, 3, 7}) {
      if (hosts > n) continue;
      AlgorithmOptions opt;
      opt.host_of_rank = block_hosts(n, hosts);
      opt.channels = 4;
      opt.slice_bytes = n <= 100 ? Bytes{8} : Bytes{0};
      check("tree", CollectiveOp::AllReduce, n, opt);
    }
  }
}

TEST_CASE("unsupported pairs and bad roots are rejected", "[algo][verify]") {
  REQUIRE_THROWS_AS(build_schedule("ring", Collective{CollectiveOp::AllToAll, 4, 0, Bytes{64}}),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(build_schedule("tree", Collective{CollectiveOp::AllGather, 4, 0, Bytes{64}}),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(build_schedule("nope", Collective{CollectiveOp::AllReduce, 4, 0, Bytes{64}}),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(build_schedule("ring", Collective{CollectiveOp::Broadcast, 4, 4, Bytes{64}}),
                    std::invalid_argument);
}

}  // namespace
}  // namespace collsim
