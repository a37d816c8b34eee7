// Rendezvous on rank 0 and a full mesh of TCP connections between the ranks of one run
// (IPv4). Rank 0 listens on the master address; every other rank connects to it, listens
// on the address that connection left from (ephemeral port), says hello (rank, world
// size, port, the run's token and parameters: handshake.hpp), hears rank 0's hello back,
// and gets the table of everyone's address; rank i then connects to ranks 1..i-1 and
// accepts ranks > i. Every accepted connection must say hello with the token.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace collsim::exec {

struct MeshOptions {
  int rank = 0;
  int world = 1;
  std::string master_host = "127.0.0.1";  // rank 0's address (IPv4 dotted quad)
  std::uint16_t master_port = 29600;
  std::string bind_host;                  // this rank's address; empty: master_host for rank 0, else the
                                          // address this rank reaches rank 0 from
  std::string token;                      // shared secret of the run (every rank the same)
  std::string params;                     // run parameters ("--iters 5" lines), compared at the hello
  std::chrono::milliseconds hello_timeout{3000};  // a connection must say hello within this
  std::chrono::milliseconds timeout{60000};
  std::string congestion;                 // TCP_CONGESTION per socket ("cubic"); empty: system default
  int socket_buffer = 0;                  // SO_SNDBUF/SO_RCVBUF bytes (forced as root); 0: kernel autotuning
};

// Returns one connected socket per rank (-1 at this rank). Throws ExecError when the
// rendezvous does not complete within the timeout, when ranks disagree on the world size
// or the run parameters, or when two processes claim one rank. Strangers (no token) are
// logged and ignored.
[[nodiscard]] std::vector<int> connect_mesh(const MeshOptions& o);

// The TCP congestion control the connected sockets run (TCP_CONGESTION of the first one:
// --congestion, a route's congctl, or the namespace's default); "" with no connection.
[[nodiscard]] std::string mesh_congestion(const std::vector<int>& fds);

}  // namespace collsim::exec
