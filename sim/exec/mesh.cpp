#include "sim/exec/mesh.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "sim/exec/exec_error.hpp"

namespace collsim::exec {

namespace {

constexpr std::uint32_t kMagic = 0x43534d58;  // "CSMX"

struct Hello {
  std::uint32_t magic = kMagic;
  std::int32_t rank = 0;
  std::int32_t world = 0;
  std::uint32_t port = 0;  // the sender's listening port (to rank 0 only)
};

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

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
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

int accept_before(int listener, Clock::time_point deadline, const std::string& what) {
  while (true) {
    pollfd pf{listener, POLLIN, 0};
    const int rc = ::poll(&pf, 1, remaining_ms(deadline));
    if (rc == 0) throw ExecError(fmt::format("timed out while {}", what));
    if (rc < 0) {
      if (errno == EINTR) continue;
      throw ExecError(fmt::format("poll failed while {}: {}", what, std::strerror(errno)));
    }
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR && errno != EAGAIN) throw ExecError(fmt::format("accept failed while {}: {}", what, std::strerror(errno)));
  }
}

// Connects, retrying while the peer is not listening yet, until the deadline.
int connect_before(const sockaddr_in& a, Clock::time_point deadline, const std::string& what) {
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return fd;
    const int e = errno;
    ::close(fd);
    if (Clock::now() >= deadline) throw ExecError(fmt::format("timed out while {}: {}", what, std::strerror(e)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void check_hello(const Hello& h, const MeshOptions& o, const std::string& what) {
  if (h.magic != kMagic) throw ExecError(fmt::format("{}: a non-collsim-exec peer connected while {}", where(o), what));
  if (h.world != o.world) {
    throw ExecError(fmt::format("{}: rank {} was started with --world {}, this rank with --world {} (mismatched rank count)",
                                where(o), h.rank, h.world, o.world));
  }
  if (h.rank < 0 || h.rank >= o.world) {
    throw ExecError(fmt::format("{}: a peer claims rank {}, outside 0..{}", where(o), h.rank, o.world - 1));
  }
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
    for (int got = 1; got < o.world; ++got) {
      const int fd = accept_before(listener, deadline,
                                   fmt::format("{} ({} of {} ranks arrived)", rendezvous, got, o.world));
      Hello h;
      try {
        read_exact(fd, &h, sizeof h, deadline, rendezvous);
        check_hello(h, o, rendezvous);
        if (h.rank == 0 || fds[static_cast<std::size_t>(h.rank)] >= 0) {
          throw ExecError(fmt::format("{}: two processes claim rank {}", where(o), h.rank));
        }
      } catch (...) {
        ::close(fd);
        throw;
      }
      sockaddr_in peer{};
      socklen_t len = sizeof peer;
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len);
      table[static_cast<std::size_t>(h.rank)] = Endpoint{peer.sin_addr.s_addr, h.port};
      fds[static_cast<std::size_t>(h.rank)] = fd;
    }
    for (int r = 1; r < o.world; ++r) write_exact(fds[static_cast<std::size_t>(r)], table.data(), table.size() * sizeof(Endpoint), rendezvous);
  } else {
    listener = listen_on(o, o.bind_host, 0);
    sockaddr_in mine{};
    socklen_t len = sizeof mine;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&mine), &len);
    const int fd = connect_before(address(o.master_host, o.master_port), deadline, rendezvous);
    fds[0] = fd;
    const Hello h{kMagic, o.rank, o.world, ntohs(mine.sin_port)};
    write_exact(fd, &h, sizeof h, rendezvous);
    read_exact(fd, table.data(), table.size() * sizeof(Endpoint), deadline, rendezvous);
    // Connect to the ranks below, accept the ranks above.
    for (int r = 1; r < o.rank; ++r) {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = table[static_cast<std::size_t>(r)].addr;
      a.sin_port = htons(static_cast<std::uint16_t>(table[static_cast<std::size_t>(r)].port));
      const std::string what = fmt::format("{}: connecting to rank {}", where(o), r);
      const int c = connect_before(a, deadline, what);
      const Hello hi{kMagic, o.rank, o.world, 0};
      write_exact(c, &hi, sizeof hi, what);
      fds[static_cast<std::size_t>(r)] = c;
    }
    for (int r = o.rank + 1; r < o.world; ++r) {
      const std::string what = fmt::format("{}: waiting for ranks above {} to connect", where(o), o.rank);
      const int c = accept_before(listener, deadline, what);
      Hello hi;
      read_exact(c, &hi, sizeof hi, deadline, what);
      check_hello(hi, o, what);
      if (hi.rank <= o.rank || fds[static_cast<std::size_t>(hi.rank)] >= 0) {
        throw ExecError(fmt::format("{}: unexpected connection from rank {}", where(o), hi.rank));
      }
      fds[static_cast<std::size_t>(hi.rank)] = c;
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
