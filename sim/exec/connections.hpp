// Framed messages over the TCP connections of one rank to its peers: non-blocking sends
// queued per peer, a poll() loop that delivers whole inbound messages, and a timeout on
// silence so that a dead or stuck peer ends the run with an ExecError instead of a hang.
// Message header: type (u32), id (u32), payload length in bytes (u64), host byte order
// (every process of a run is the same build on the same kind of machine).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collsim::exec {

enum class MsgType : std::uint32_t { Data = 1, Done = 2, Barrier = 3, Go = 4, Result = 5 };

struct MsgHeader {
  MsgType type = MsgType::Data;
  std::uint32_t id = 0;       // transfer id (Data, Done), iteration (Barrier, Go)
  std::uint64_t length = 0;   // payload bytes that follow
};

using Payload = std::shared_ptr<std::byte[]>;

class Connections {
 public:
  using Handler = std::function<void(int peer, const MsgHeader&, Payload)>;
  // Called as payload bytes of a message arrive: bytes [0, received) of `payload` are in.
  // Lets the receiver work on a message while the rest is still on the wire.
  using Progress = std::function<void(int peer, const MsgHeader&, const std::byte* payload, std::uint64_t received)>;

  // fds[r] is the connected socket to rank r (-1 for this rank); takes ownership.
  Connections(std::vector<int> fds, int self, std::chrono::milliseconds timeout);
  ~Connections();
  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  // Queues a message; `on_sent` runs once its last byte is in the kernel's socket buffer.
  // The payload must stay unchanged until then (it is shared, never copied).
  void send(int peer, MsgHeader h, Payload payload, std::function<void()> on_sent = {});
  // Polls until done() holds, delivering inbound messages to `on_message`. Throws
  // ExecError when a peer disconnects or nothing moves for the timeout; `waiting_for`
  // describes the wait for that message.
  void run_until(const std::function<bool()>& done, const Handler& on_message, const std::string& waiting_for);

  // From now on a peer that closes its connection has finished, not failed: its socket
  // is closed here too and run_until goes on with the others (used while shutting down).
  void accept_close() { closing_ok_ = true; }
  [[nodiscard]] bool is_open(int peer) const { return peers_.at(static_cast<std::size_t>(peer)).fd >= 0; }

  void set_progress(Progress p) { progress_ = std::move(p); }
  // Judges each inbound header before any of its payload is read or memory is reserved
  // for it: returns "" to take the message, else why it cannot be (then run_until throws).
  // Without a check, only messages without payload are taken.
  using Check = std::function<std::string(int peer, const MsgHeader&)>;
  void set_check(Check c) { check_ = std::move(c); }

  [[nodiscard]] int self() const { return self_; }
  [[nodiscard]] int world() const { return static_cast<int>(peers_.size()); }

 private:
  struct Outgoing {
    std::byte header[sizeof(MsgHeader)];
    Payload payload;
    std::uint64_t length = 0;
    std::uint64_t offset = 0;  // bytes of header + payload written
    std::function<void()> on_sent;
  };
  struct Peer {
    int fd = -1;
    std::deque<Outgoing> out;
    std::byte header[sizeof(MsgHeader)];
    std::size_t header_got = 0;
    MsgHeader in;
    Payload in_payload;
    std::uint64_t payload_got = 0;
  };

  bool flush(int peer);                                  // true when progress was made
  bool receive(int peer, const Handler& on_message);     // true when progress was made

  std::vector<Peer> peers_;
  int self_;
  std::chrono::milliseconds timeout_;
  bool closing_ok_ = false;
  Progress progress_;
  Check check_;
};

}  // namespace collsim::exec
