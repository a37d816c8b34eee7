// Executes collsim Schedules for real: one ExecSession per process (rank), over the
// connected mesh. Each iteration starts on a barrier (every rank ready -> rank 0 says go);
// a transfer leaves its sender when its dependencies are met (a dependency this rank
// sent counts as met once its bytes are in the socket; one it received, once applied;
// any other, when its receiver's "done" notice arrives), and a rank's iteration ends when
// all its sends, receives and notices are through. Rank 0 gathers every rank's durations.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/algo/schedule.hpp"
#include "sim/exec/connections.hpp"

namespace collsim::exec {

struct RunResult {
  // Per timed iteration: the longest of the ranks' durations from their "go" to their
  // last byte (seconds). Filled on rank 0 only.
  std::vector<double> iteration_s;
  // Wrong result elements summed over all ranks and iterations (rank 0), or this rank's.
  std::int64_t wrong = 0;
  // The last iteration, per transfer t: [2t] start at its sender, [2t+1] applied at its
  // receiver, seconds from that rank's go (ranks' go times differ by the barrier's
  // delivery skew). Complete on rank 0 only.
  std::vector<double> transfer_s;
};

class ExecSession {
 public:
  explicit ExecSession(Connections& conn);

  // Runs `warmup` untimed and `iters` timed iterations of `s`, checking the result after
  // each. Every rank must call it with the same schedule and counts.
  [[nodiscard]] RunResult run(const Schedule& s, int warmup, int iters);
  // Ends the session cleanly: rank 0 tells everyone, so that nobody reads a closed peer.
  void finish();

 private:
  void on_message(int peer, const MsgHeader& h, Payload p);
  // Why a message with this header cannot be right now ("" when it can): see Connections::set_check.
  [[nodiscard]] std::string check(int peer, const MsgHeader& h) const;
  void barrier();

  Connections& conn_;
  int rank_;
  int world_;
  std::uint32_t seq_ = 0;                       // iterations started in this session
  std::map<std::uint32_t, int> barrier_count_;  // rank 0: ready ranks per iteration
  std::uint32_t go_seen_ = 0;                   // last "go" received (seq + 1)
  bool finished_ = false;
  std::map<int, std::vector<double>> results_;  // rank 0: per rank [wrong, durations...]
  std::uint64_t result_bytes_ = 0;              // length of each rank's results message
  // The schedule iteration in progress (message handlers forward to it).
  class Iteration;
  Iteration* current_ = nullptr;
};

}  // namespace collsim::exec
