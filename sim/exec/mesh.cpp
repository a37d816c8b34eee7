#include "sim/exec/mesh.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "sim/exec/exec_error.hpp"
#include "sim/exec/handshake.hpp"

namespace collsim::exec {

namespace {

struct Endpoint {
  std::uint32_t addr = 0;  // network byte order
  std::uint32_t port = 0;  // host byte order
};

using Clock = std::chrono::steady_clock;

std::string where(const MeshOptions& o) { return fmt::format("rank {}", o.rank); }

sockaddr_in address(const std::string& host, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (host.empty()) {
    a.sin_addr.s_addr = htonl(INADDR_ANY);
  } else if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    throw ExecError(fmt::format("\"{}\" is not an IPv4 address", host));
  }
  return a;
}

void tune(int fd, const MeshOptions& o) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // small control messages go at once
  if (o.socket_buffer > 0) {
    // Fixed buffers keep data flowing while a process waits for a CPU on a busy machine
    // (autotuning grows the window only as fast as the reader is seen to read). The
    // FORCE variants (root) pass net.core.[rw]mem_max; otherwise the kernel clamps.
    for (const auto& [force, plain] : {std::pair{SO_SNDBUFFORCE, SO_SNDBUF}, std::pair{SO_RCVBUFFORCE, SO_RCVBUF}}) {
      if (::setsockopt(fd, SOL_SOCKET, force, &o.socket_buffer, sizeof o.socket_buffer) != 0) {
        ::setsockopt(fd, SOL_SOCKET, plain, &o.socket_buffer, sizeof o.socket_buffer);
      }
    }
  }
  if (!o.congestion.empty() &&
      ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o.congestion.c_str(), static_cast<socklen_t>(o.congestion.size())) != 0) {
    throw ExecError(fmt::format("{}: congestion control \"{}\" not available: {}", where(o), o.congestion,
                                std::strerror(errno)));
  }
}

// Blocking read/write of exactly n bytes before the deadline.
void read_exact(int fd, void* buf, std::size_t n, Clock::time_point deadline, const std::string& what) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    pollfd pf{fd, POLLIN, 0};
    const int rc = ::poll(&pf, 1, remaining_ms(deadline));
    if (rc == 0) throw ExecError(fmt::format("timed out while {}", what));
    if (rc < 0 && errno != EINTR) throw ExecError(fmt::format("poll failed while {}: {}", what, std::strerror(errno)));
    if (rc < 0) continue;
    const ssize_t got = ::recv(fd, p, n, 0);
    if (got == 0) throw ExecError(fmt::format("peer closed the connection while {}", what));
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw ExecError(fmt::format("receive failed while {}: {}", what, std::strerror(errno)));
    }
    p += got;
    n -= static_cast<std::size_t>(got);
  }
}

void write_exact(int fd, const void* buf, std::size_t n, const std::string& what) {
  const auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    const ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
    if (put < 0) {
      if (errno == EINTR) continue;
      throw ExecError(fmt::format("send failed while {}: {}", what, std::strerror(errno)));
    }
    p += put;
    n -= static_cast<std::size_t>(put);
  }
}

int listen_on(const MeshOptions& o, const std::string& host, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw ExecError(fmt::format("{}: socket: {}", where(o), std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const sockaddr_in a = address(host, port);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    const int e = errno;
    ::close(fd);
    throw ExecError(fmt::format("{}: cannot listen on {}:{}: {}", where(o), host.empty() ? "*" : host, port, std::strerror(e)));
  }
  ::listen(fd, 128);
  return fd;
}

// Connects, retrying while the peer is not listening yet, until the deadline. The socket
// leaves from `source` when set (--bind), so that the address rank 0 sees and hands on to
// the others is the one this rank listens on.
int connect_before(const sockaddr_in& a, const std::string& source, Clock::time_point deadline, const std::string& what) {
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (!source.empty()) {
      const sockaddr_in s = address(source, 0);
      if (::bind(fd, reinterpret_cast<const sockaddr*>(&s), sizeof s) != 0) {
        const int e = errno;
        ::close(fd);
        throw ExecError(fmt::format("cannot bind to {} while {}: {}", source, what, std::strerror(e)));
      }
    }
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return fd;
    const int e = errno;
    ::close(fd);
    if (Clock::now() >= deadline) throw ExecError(fmt::format("timed out while {}: {}", what, std::strerror(e)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A hello from a rank of this run (it has the token): the world size and run parameters
// must be ours, or the ranks were started differently (exit 2 on both sides).
void check_same_run(const Hello& h, const std::string& params, const MeshOptions& o, const std::string& who) {
  if (h.world != o.world) {
    throw ExecError(fmt::format("{}: {} was started with --world {}, this rank with --world {} (mismatched rank count)",
                                where(o), who, h.world, o.world));
  }
  if (h.rank < 0 || h.rank >= o.world) {
    throw ExecError(fmt::format("{}: a peer claims rank {}, outside 0..{}", where(o), h.rank, o.world - 1));
  }
  const std::string diff = params_differences(params, o.params);
  if (!diff.empty()) {
    throw ExecError(fmt::format("{}: {} was started with different run parameters: {}", where(o), who, diff));
  }
}

void send_hello(int fd, const MeshOptions& o, std::uint32_t port, const std::string& params, const std::string& what) {
  const Hello h = make_hello(o.rank, o.world, port, o.token, params);
  write_exact(fd, &h, sizeof h, what);
  write_exact(fd, params.data(), params.size(), what);
}

AcceptOptions accept_options(const MeshOptions& o) {
  return AcceptOptions{o.token, std::min(o.hello_timeout, o.timeout), where(o)};
}

}  // namespace

namespace {

std::vector<int> connect_mesh_or_throw(const MeshOptions& o, std::vector<int>& fds, int& listener);

}  // namespace

std::vector<int> connect_mesh(const MeshOptions& o) {
  std::vector<int> fds;
  int listener = -1;
  try {
    return connect_mesh_or_throw(o, fds, listener);
  } catch (...) {
    // Close everything so that peers see the failure at once instead of timing out.
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    if (listener >= 0) ::close(listener);
    throw;
  }
}

namespace {

std::vector<int> connect_mesh_or_throw(const MeshOptions& o, std::vector<int>& fds, int& listener) {
  if (o.world < 1 || o.rank < 0 || o.rank >= o.world) {
    throw ExecError(fmt::format("rank {} is outside 0..{}", o.rank, o.world - 1));
  }
  fds.assign(static_cast<std::size_t>(o.world), -1);
  if (o.world == 1) return fds;
  const auto deadline = Clock::now() + o.timeout;
  const std::string rendezvous = fmt::format("{}: waiting for the rendezvous on {}:{}", where(o), o.master_host, o.master_port);
  std::vector<Endpoint> table(static_cast<std::size_t>(o.world));
  if (o.rank == 0) {
    listener = listen_on(o, o.bind_host.empty() ? o.master_host : o.bind_host, o.master_port);
    // Each rank hears rank 0's hello before rank 0 judges its own, so that a rank started
    // with other parameters names the difference too instead of seeing a hang-up.
    auto check = [&](const Arrival& a, const std::vector<Arrival>& before) {
      send_hello(a.fd, o, 0, o.params, rendezvous);
      const std::string who = fmt::format("rank {} ({})", a.hello.rank, peer_name(a.from));
      check_same_run(a.hello, a.params, o, who);
      const bool twice = std::any_of(before.begin(), before.end(), [&](const Arrival& b) { return b.hello.rank == a.hello.rank; });
      if (a.hello.rank == 0 || twice) throw ExecError(fmt::format("{}: two processes claim rank {}", where(o), a.hello.rank));
    };
    for (const Arrival& a : accept_hellos(listener, o.world - 1, deadline, accept_options(o), rendezvous, check)) {
      table[static_cast<std::size_t>(a.hello.rank)] = Endpoint{a.from.sin_addr.s_addr, a.hello.port};
      fds[static_cast<std::size_t>(a.hello.rank)] = a.fd;
    }
    for (int r = 1; r < o.world; ++r) write_exact(fds[static_cast<std::size_t>(r)], table.data(), table.size() * sizeof(Endpoint), rendezvous);
  } else {
    const int fd = connect_before(address(o.master_host, o.master_port), o.bind_host, deadline, rendezvous);
    fds[0] = fd;
    // Listen where this rank reaches rank 0 from (not on every interface): the other ranks
    // connect to that address, and nobody needs to reach this rank by any other.
    std::string host = o.bind_host;
    if (host.empty()) {
      sockaddr_in mine{};
      socklen_t len = sizeof mine;
      char name[INET_ADDRSTRLEN] = {};
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &len);
      host = ::inet_ntop(AF_INET, &mine.sin_addr, name, sizeof name) ? name : "";
    }
    listener = listen_on(o, host, 0);
    sockaddr_in mine{};
    socklen_t len = sizeof mine;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&mine), &len);
    send_hello(fd, o, ntohs(mine.sin_port), o.params, rendezvous);
    Hello zero;
    try {
      read_exact(fd, &zero, sizeof zero, deadline, rendezvous);
    } catch (const ExecError& e) {
      // Rank 0 hangs up on a hello without its token; say so rather than only "closed".
      throw ExecError(fmt::format("{} (rank 0 did not answer this rank's hello: is --token/COLLSIM_EXEC_TOKEN the same on "
                                  "every rank? rank 0's stderr names why it refused)", e.what()));
    }
    if (zero.magic != kHelloMagic || !token_matches(zero, o.token)) {
      throw ExecError(fmt::format("{}: the process at {}:{} is not rank 0 of this run (no hello with this run's token: "
                                  "is --token/COLLSIM_EXEC_TOKEN the same on every rank?)",
                                  where(o), o.master_host, o.master_port));
    }
    if (zero.params_len > kMaxParamsBytes) throw ExecError(fmt::format("{}: malformed hello from rank 0", where(o)));
    std::string params(zero.params_len, '\0');
    read_exact(fd, params.data(), params.size(), deadline, rendezvous);
    check_same_run(zero, params, o, "rank 0");
    read_exact(fd, table.data(), table.size() * sizeof(Endpoint), deadline, rendezvous);
    // Connect to the ranks below, accept the ranks above.
    for (int r = 1; r < o.rank; ++r) {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = table[static_cast<std::size_t>(r)].addr;
      a.sin_port = htons(static_cast<std::uint16_t>(table[static_cast<std::size_t>(r)].port));
      const std::string what = fmt::format("{}: connecting to rank {}", where(o), r);
      const int c = connect_before(a, o.bind_host, deadline, what);
      fds[static_cast<std::size_t>(r)] = c;
      send_hello(c, o, 0, "", what);
    }
    const std::string what = fmt::format("{}: waiting for ranks above {} to connect", where(o), o.rank);
    // Rank 0 has compared everyone's parameters; here a hello only has to name a rank above.
    auto check = [&](const Arrival& a, const std::vector<Arrival>& before) {
      const bool twice = std::any_of(before.begin(), before.end(), [&](const Arrival& b) { return b.hello.rank == a.hello.rank; });
      if (a.hello.world != o.world || a.hello.rank <= o.rank || a.hello.rank >= o.world || twice) {
        throw ExecError(fmt::format("{}: unexpected connection from rank {} ({})", where(o), a.hello.rank, peer_name(a.from)));
      }
    };
    for (const Arrival& a : accept_hellos(listener, o.world - 1 - o.rank, deadline, accept_options(o), what, check)) {
      fds[static_cast<std::size_t>(a.hello.rank)] = a.fd;
    }
  }
  ::close(listener);
  listener = -1;
  for (int fd : fds) {
    if (fd >= 0) tune(fd, o);
  }
  return fds;
}

}  // namespace

std::string mesh_congestion(const std::vector<int>& fds) {
  for (int fd : fds) {
    if (fd < 0) continue;
    char name[32] = {};
    socklen_t len = sizeof(name) - 1;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) return "unknown";
    return std::string(name, ::strnlen(name, len));
  }
  return "";
}

}  // namespace collsim::exec
