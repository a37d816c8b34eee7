// collsim-exec's pieces: chunk arithmetic, and whole schedules executed between threads
// over loopback TCP (the same code the collsim-exec processes run).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "sim/algo/registry.hpp"
#include "sim/exec/chunk_data.hpp"
#include "sim/exec/exec_error.hpp"
#include "sim/exec/exec_session.hpp"
#include "sim/exec/handshake.hpp"
#include "sim/exec/mesh.hpp"

using namespace collsim;
using namespace collsim::exec;

namespace {

// Runs `s` on `world` threads, each its own rank with its own connections; returns rank
// 0's result and every rank's wrong count.
std::pair<RunResult, std::int64_t> run_threads(const Schedule& s, int world, std::uint16_t port) {
  std::vector<std::future<RunResult>> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(std::async(std::launch::async, [&s, r, world, port] {
      MeshOptions o;
      o.rank = r;
      o.world = world;
      o.master_port = port;
      o.timeout = std::chrono::milliseconds(10000);
      Connections conn(connect_mesh(o), r, o.timeout);
      ExecSession session(conn);
      RunResult res = session.run(s, 1, 2);
      session.finish();
      return res;
    }));
  }
  RunResult zero = ranks[0].get();
  std::int64_t wrong = zero.wrong;
  for (int r = 1; r < world; ++r) (void)ranks[static_cast<std::size_t>(r)].get();
  return {zero, wrong};
}

// A port nothing listens on now: bind to port 0 and read what the kernel picked.
std::uint16_t next_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("chunk data: reduce adds, copy replaces, the check counts wrong elements", "[exec]") {
  // Two ranks, one chunk of 10 bytes (2 floats + 2 tail bytes) that every rank holds.
  Schedule s(Collective{CollectiveOp::AllReduce, 2, 0, Bytes{10}}, "test");
  s.add_chunk(ChunkSpec{Bytes{10}});
  ChunkData a(s, 0), b(s, 1);
  a.reset();
  b.reset();
  // Rank 0 must end with rank 0's + rank 1's contribution; before any transfer it has
  // only its own, so all 4 elements are wrong.
  CHECK(a.count_wrong() == 4);
  a.apply(0, TransferKind::Reduce, b.snapshot(0));
  CHECK(a.count_wrong() == 0);
  // Copying rank 1's (unreduced) chunk over it makes every element wrong again.
  b.reset();
  a.apply(0, TransferKind::Copy, b.snapshot(0));
  CHECK(a.count_wrong() == 4);
  // contribution(1, 0, 0) = (2*31 + 0 + 0) % 61 = 1.
  CHECK(contribution(1, 0, 0) == 1.0f);
}

TEST_CASE("ring and parameter-server all-reduce run correctly between threads", "[exec]") {
  for (const char* algo : {"ring", "ps"}) {
    for (int world : {2, 3, 4}) {
      // 1000003 bytes: not a multiple of 4 or of the rank count, so chunks end in tail bytes.
      const Schedule s = build_schedule(algo, Collective{CollectiveOp::AllReduce, world, 0, Bytes{1000003}});
      const auto [res, wrong] = run_threads(s, world, next_port());
      CHECK(wrong == 0);
      REQUIRE(res.iteration_s.size() == 2);
      CHECK(res.iteration_s[0] > 0);
    }
  }
}

TEST_CASE("rendezvous gives up after its timeout when a rank never comes", "[exec]") {
  MeshOptions o;
  o.rank = 0;
  o.world = 2;
  o.master_port = next_port();
  o.timeout = std::chrono::milliseconds(300);
  CHECK_THROWS_AS(connect_mesh(o), ExecError);
}

TEST_CASE("ranks that disagree on the world size are refused", "[exec]") {
  const std::uint16_t port = next_port();
  auto zero = std::async(std::launch::async, [port] {
    MeshOptions o;
    o.rank = 0, o.world = 2, o.master_port = port, o.timeout = std::chrono::milliseconds(3000);
    return connect_mesh(o);
  });
  MeshOptions o;
  o.rank = 1, o.world = 3, o.master_port = port, o.timeout = std::chrono::milliseconds(3000);
  auto one = std::async(std::launch::async, [o] { return connect_mesh(o); });
  CHECK_THROWS_AS(zero.get(), ExecError);
  CHECK_THROWS_AS(one.get(), ExecError);  // rank 0 hangs up without a table
}

TEST_CASE("strangers are ignored and the rendezvous goes on", "[exec]") {
  const std::uint16_t port = next_port();
  MeshOptions o;
  o.world = 2, o.master_port = port, o.timeout = std::chrono::milliseconds(5000);
  o.token = "0123456789abcdef";
  o.hello_timeout = std::chrono::milliseconds(200);
  auto zero = std::async(std::launch::async, [o] { return connect_mesh(o); });
  // A silent connection and one with the wrong token arrive before the real rank 1.
  auto connect_raw = [port] {
    for (int i = 0; i < 100; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
      ::close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  };
  const int silent = connect_raw();
  const int wrong = connect_raw();
  REQUIRE(silent >= 0);
  REQUIRE(wrong >= 0);
  const Hello h = make_hello(1, 2, 0, "not-the-token-at-all", "");
  CHECK(::send(wrong, &h, sizeof h, 0) == static_cast<ssize_t>(sizeof h));
  MeshOptions one = o;
  one.rank = 1;
  auto fds1 = connect_mesh(one);
  auto fds0 = zero.get();
  CHECK(fds0[1] >= 0);
  CHECK(fds1[0] >= 0);
  for (int fd : {fds0[1], fds1[0], silent, wrong}) ::close(fd);
}

TEST_CASE("hello tokens and run parameters are compared", "[exec]") {
  const Hello h = make_hello(1, 2, 0, "0123456789abcdef", "");
  CHECK(token_matches(h, "0123456789abcdef"));
  CHECK_FALSE(token_matches(h, "0123456789abcdeg"));
  CHECK_FALSE(token_matches(h, "0123456789abcdef0"));
  CHECK_FALSE(token_matches(h, ""));
  CHECK(params_differences("--iters 3\n--algo ring\n", "--algo ring\n--iters 3\n").empty());
  CHECK(params_differences("--iters 3\n--algo ring\n", "--iters 5\n--algo ring\n") == "--iters 3 there, 5 here");
}
