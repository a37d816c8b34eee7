#include "sim/exec/handshake.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/exec/exec_error.hpp"

namespace collsim::exec {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kOldMagic = 0x43534d58;  // builds before the token: a 16-byte hello
// Beyond these a flood of strangers is closed at once (a real rank retries nothing, but
// the flood would have to outlast the hello timeout of the earlier ones to keep it out),
// and it stops being logged line by line so that it cannot fill the disk behind stderr.
constexpr std::size_t kMaxPending = 256;
constexpr int kMaxLoggedStrangers = 50;

std::map<std::string, std::string> parse_params(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    out[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return out;
}

// One accepted connection whose hello is still coming in.
struct Pending {
  int fd = -1;
  sockaddr_in from{};
  Clock::time_point deadline;
  Hello hello;
  std::size_t got = 0;  // bytes of the hello read
  std::string params;
};

class Strangers {
 public:
  explicit Strangers(const std::string& where) : where_(where) {}
  void drop(Pending& p, const std::string& why) {
    ++count_;
    if (count_ <= kMaxLoggedStrangers) {
      spdlog::warn("{}: ignored a connection from {}: {}", where_, peer_name(p.from), why);
    } else if (count_ == kMaxLoggedStrangers + 1) {
      spdlog::warn("{}: more than {} strangers connected; ignoring the rest without logging each", where_,
                   kMaxLoggedStrangers);
    }
    ::close(p.fd);
    p.fd = -1;
  }

 private:
  std::string where_;
  int count_ = 0;
};

// Reads what has arrived of p's hello. Returns true once it is complete and carries the
// token; drops p as a stranger (fd -1) when it cannot be one of ours.
bool read_some(Pending& p, const AcceptOptions& o, Strangers& strangers) {
  const std::size_t head = sizeof(Hello);
  while (true) {
    char* dst;
    std::size_t len;
    if (p.got < head) {
      dst = reinterpret_cast<char*>(&p.hello) + p.got;
      len = head - p.got;
    } else {
      dst = p.params.data() + (p.got - head);
      len = head + p.params.size() - p.got;
    }
    if (len == 0) return true;
    const ssize_t n = ::recv(p.fd, dst, len, MSG_DONTWAIT);
    if (n == 0) {
      strangers.drop(p, fmt::format("closed the connection after {} bytes of a {}-byte hello", p.got, head));
      return false;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
      strangers.drop(p, fmt::format("receive failed: {}", std::strerror(errno)));
      return false;
    }
    const std::size_t before = p.got;
    p.got += static_cast<std::size_t>(n);
    // The magic decides as soon as it is in (an old hello is shorter than a new one).
    if (before < sizeof p.hello.magic && p.got >= sizeof p.hello.magic) {
      if (p.hello.magic == kOldMagic) {
        strangers.drop(p, "a collsim-exec hello without a token (a build from before tokens?)");
        return false;
      }
      if (p.hello.magic != kHelloMagic) {
        strangers.drop(p, "not a collsim-exec hello (wrong magic)");
        return false;
      }
    }
    if (before >= head || p.got < head) continue;
    // The fixed part is in: decide before reading (or allocating) anything more.
    if (!token_matches(p.hello, o.token)) {
      strangers.drop(p, "wrong or missing token");
      return false;
    }
    if (p.hello.params_len > kMaxParamsBytes) {
      strangers.drop(p, fmt::format("malformed hello (parameters of {} bytes, at most {})", p.hello.params_len,
                                    kMaxParamsBytes));
      return false;
    }
    p.params.assign(p.hello.params_len, '\0');
  }
}

}  // namespace

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(std::min<long long>(left, 1 << 30)) : 0;
}

Hello make_hello(int rank, int world, std::uint32_t port, const std::string& token, const std::string& params) {
  if (token.size() > kTokenBytes) throw ExecError(fmt::format("the token is longer than {} bytes", kTokenBytes));
  if (params.size() > kMaxParamsBytes) throw ExecError(fmt::format("run parameters longer than {} bytes", kMaxParamsBytes));
  Hello h;
  h.rank = rank;
  h.world = world;
  h.port = port;
  h.params_len = static_cast<std::uint32_t>(params.size());
  std::copy(token.begin(), token.end(), h.token.begin());
  return h;
}

bool token_matches(const Hello& h, const std::string& token) {
  if (token.size() > kTokenBytes) return false;
  std::array<char, kTokenBytes> want{};
  std::copy(token.begin(), token.end(), want.begin());
  unsigned diff = 0;
  for (std::size_t i = 0; i < kTokenBytes; ++i) diff |= static_cast<unsigned char>(h.token[i] ^ want[i]);
  return diff == 0;
}

std::string params_differences(const std::string& theirs, const std::string& mine) {
  const auto a = parse_params(theirs), b = parse_params(mine);
  std::vector<std::string> keys;
  for (const auto& [k, v] : a) keys.push_back(k);
  for (const auto& [k, v] : b) {
    if (!a.count(k)) keys.push_back(k);
  }
  std::vector<std::string> out;
  for (const auto& k : keys) {
    const auto x = a.find(k), y = b.find(k);
    const std::string there = x == a.end() ? "(unset)" : x->second, here = y == b.end() ? "(unset)" : y->second;
    if (there != here) out.push_back(fmt::format("{} {} there, {} here", k, there, here));
  }
  return fmt::format("{}", fmt::join(out, "; "));
}

std::string peer_name(const sockaddr_in& a) {
  char host[INET_ADDRSTRLEN] = "?";
  ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
  return fmt::format("{}:{}", host, ntohs(a.sin_port));
}

std::vector<Arrival> accept_hellos(int listener, int count, Clock::time_point deadline, const AcceptOptions& o,
                                   const std::string& what, const ArrivalCheck& check) {
  std::vector<Arrival> arrivals;
  std::vector<Pending> pending;
  Strangers strangers(o.where);
  auto close_all = [&] {
    for (auto& p : pending) {
      if (p.fd >= 0) ::close(p.fd);
    }
    for (auto& a : arrivals) ::close(a.fd);
  };
  try {
    std::vector<pollfd> fds;
    while (static_cast<int>(arrivals.size()) < count) {
      // Drop the connections whose hello is overdue, then wait for the next event.
      Clock::time_point wake = deadline;
      const auto now = Clock::now();
      for (auto& p : pending) {
        if (p.deadline <= now) {
          strangers.drop(p, fmt::format("sent no complete hello within {:.1f} s ({} of {} bytes)",
                                        static_cast<double>(o.hello_timeout.count()) / 1000.0, p.got,
                                        sizeof(Hello) + p.params.size()));
        } else {
          wake = std::min(wake, p.deadline);
        }
      }
      std::erase_if(pending, [](const Pending& p) { return p.fd < 0; });
      if (now >= deadline) {
        throw ExecError(fmt::format("timed out while {} ({} of {} arrived)", what, arrivals.size(), count));
      }
      fds.assign(1, pollfd{listener, POLLIN, 0});
      for (const auto& p : pending) fds.push_back(pollfd{p.fd, POLLIN, 0});
      const int rc = ::poll(fds.data(), fds.size(), remaining_ms(wake));
      if (rc < 0) {
        if (errno == EINTR) continue;
        throw ExecError(fmt::format("poll failed while {}: {}", what, std::strerror(errno)));
      }
      if (rc == 0) continue;
      const std::size_t before = pending.size();
      for (std::size_t i = 0; i < before; ++i) {
        if (fds[i + 1].revents == 0) continue;
        Pending& p = pending[i];
        if (!read_some(p, o, strangers)) continue;
        Arrival a{p.fd, p.hello, std::move(p.params), p.from};
        p.fd = -1;
        arrivals.push_back(std::move(a));
        check(arrivals.back(), std::vector<Arrival>(arrivals.begin(), arrivals.end() - 1));
        if (static_cast<int>(arrivals.size()) == count) break;
      }
      std::erase_if(pending, [](const Pending& p) { return p.fd < 0; });
      if (static_cast<int>(arrivals.size()) == count || !(fds[0].revents & POLLIN)) continue;
      Pending p;
      socklen_t len = sizeof p.from;
      p.fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&p.from), &len, SOCK_CLOEXEC);
      if (p.fd < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
        throw ExecError(fmt::format("accept failed while {}: {}", what, std::strerror(errno)));
      }
      p.deadline = Clock::now() + o.hello_timeout;
      if (pending.size() >= kMaxPending) {
        strangers.drop(p, fmt::format("{} connections are already waiting to say hello", kMaxPending));
        continue;
      }
      pending.push_back(p);
    }
  } catch (...) {
    close_all();
    throw;
  }
  // Whoever is still saying hello is not one of the ranks (they have all arrived).
  for (auto& p : pending) strangers.drop(p, "still saying hello when every rank had arrived");
  return arrivals;
}

}  // namespace collsim::exec
