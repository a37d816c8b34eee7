#include "sim/exec/connections.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sim/exec/exec_error.hpp"

namespace collsim::exec {

Connections::Connections(std::vector<int> fds, int self, std::chrono::milliseconds timeout)
    : peers_(fds.size()), self_(self), timeout_(timeout) {
  for (std::size_t r = 0; r < fds.size(); ++r) peers_[r].fd = fds[r];
}

Connections::~Connections() {
  for (auto& p : peers_) {
    if (p.fd >= 0) ::close(p.fd);
  }
}

void Connections::send(int peer, MsgHeader h, Payload payload, std::function<void()> on_sent) {
  Peer& p = peers_.at(static_cast<std::size_t>(peer));
  if (p.fd < 0) throw ExecError(fmt::format("rank {}: no connection to rank {}", self_, peer));
  Outgoing o;
  std::memcpy(o.header, &h, sizeof h);
  o.payload = std::move(payload);
  o.length = sizeof(MsgHeader) + h.length;
  o.on_sent = std::move(on_sent);
  p.out.push_back(std::move(o));
}

bool Connections::flush(int peer) {
  Peer& p = peers_[static_cast<std::size_t>(peer)];
  bool progress = false;
  while (!p.out.empty()) {
    Outgoing& o = p.out.front();
    const std::byte* src;
    std::size_t len;
    if (o.offset < sizeof(MsgHeader)) {
      src = o.header + o.offset;
      len = sizeof(MsgHeader) - o.offset;
    } else {
      src = o.payload.get() + (o.offset - sizeof(MsgHeader));
      len = static_cast<std::size_t>(o.length - o.offset);
    }
    const ssize_t n = ::send(p.fd, src, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return progress;
      throw ExecError(fmt::format("rank {}: sending to rank {} failed: {} (peer gone mid-collective?)", self_, peer,
                                  std::strerror(errno)));
    }
    progress = true;
    o.offset += static_cast<std::uint64_t>(n);
    if (o.offset == o.length) {
      auto cb = std::move(o.on_sent);
      p.out.pop_front();
      if (cb) cb();
    }
  }
  return progress;
}

bool Connections::receive(int peer, const Handler& on_message) {
  Peer& p = peers_[static_cast<std::size_t>(peer)];
  bool progress = false;
  while (true) {
    std::byte* dst;
    std::size_t len;
    if (p.header_got < sizeof(MsgHeader)) {
      dst = p.header + p.header_got;
      len = sizeof(MsgHeader) - p.header_got;
    } else {
      dst = p.in_payload.get() + p.payload_got;
      len = static_cast<std::size_t>(p.in.length - p.payload_got);
    }
    const ssize_t n = ::recv(p.fd, dst, len, MSG_DONTWAIT);
    if (n == 0 && closing_ok_) {
      ::close(p.fd);
      p.fd = -1;
      return true;
    }
    if (n == 0) throw ExecError(fmt::format("rank {}: rank {} closed its connection (peer died or gave up)", self_, peer));
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return progress;
      throw ExecError(fmt::format("rank {}: receiving from rank {} failed: {}", self_, peer, std::strerror(errno)));
    }
    progress = true;
    if (p.header_got < sizeof(MsgHeader)) {
      p.header_got += static_cast<std::size_t>(n);
      if (p.header_got < sizeof(MsgHeader)) continue;
      std::memcpy(&p.in, p.header, sizeof(MsgHeader));
      if (p.in.type < MsgType::Data || p.in.type > MsgType::Result) {
        throw ExecError(fmt::format("rank {}: malformed message from rank {} (type {}; not a collsim-exec peer?)", self_,
                                    peer, static_cast<std::uint32_t>(p.in.type)));
      }
      // The length comes from the peer: it must be what the schedule says before a byte
      // is reserved for it, or one bad header could make this rank allocate any amount.
      const std::string why = check_ ? check_(peer, p.in)
                                     : (p.in.length == 0 ? "" : fmt::format("{} unexpected payload bytes", p.in.length));
      if (!why.empty()) {
        throw ExecError(fmt::format("rank {}: refused a message from rank {}: {} (peers run different schedules?)", self_,
                                    peer, why));
      }
      p.payload_got = 0;
      p.in_payload = p.in.length > 0 ? Payload(new std::byte[p.in.length]) : Payload{};
    } else {
      p.payload_got += static_cast<std::uint64_t>(n);
      if (progress_) progress_(peer, p.in, p.in_payload.get(), p.payload_got);
    }
    if (p.header_got == sizeof(MsgHeader) && p.payload_got == p.in.length) {
      p.header_got = 0;
      const MsgHeader h = p.in;
      on_message(peer, h, std::move(p.in_payload));
    }
  }
}

void Connections::run_until(const std::function<bool()>& done, const Handler& on_message,
                            const std::string& waiting_for) {
  std::vector<pollfd> fds;
  std::vector<int> rank_of;
  auto last_progress = std::chrono::steady_clock::now();
  while (true) {
    // Push out whatever can go without blocking before deciding to wait.
    bool progress = false;
    for (int r = 0; r < world(); ++r) {
      if (peers_[static_cast<std::size_t>(r)].fd >= 0 && flush(r)) progress = true;
    }
    if (done()) return;
    fds.clear();
    rank_of.clear();
    for (int r = 0; r < world(); ++r) {
      const Peer& p = peers_[static_cast<std::size_t>(r)];
      if (p.fd < 0) continue;
      short events = POLLIN;
      if (!p.out.empty()) events |= POLLOUT;
      fds.push_back(pollfd{p.fd, events, 0});
      rank_of.push_back(r);
    }
    const auto now = std::chrono::steady_clock::now();
    if (progress) last_progress = now;
    const auto left = timeout_ - std::chrono::duration_cast<std::chrono::milliseconds>(now - last_progress);
    if (left.count() <= 0) {
      throw ExecError(fmt::format("rank {}: nothing moved for {:.1f} s while {} (a peer is dead or stuck)", self_,
                                  static_cast<double>(timeout_.count()) / 1000.0, waiting_for));
    }
    const int rc = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (rc < 0) {
      if (errno == EINTR) continue;
      throw ExecError(fmt::format("rank {}: poll failed: {}", self_, std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0 || !is_open(rank_of[i])) continue;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) {
        if (receive(rank_of[i], on_message)) last_progress = std::chrono::steady_clock::now();
      }
      if ((fds[i].revents & POLLOUT) && is_open(rank_of[i])) {
        if (flush(rank_of[i])) last_progress = std::chrono::steady_clock::now();
      }
    }
  }
}

}  // namespace collsim::exec
