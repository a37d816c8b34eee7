// Builds a Schedule step by step and derives data dependencies: a transfer depends on
// every transfer of the most recent step that wrote the chunk it sends on its source
// rank. Transfers queued in one step all read what their sources held before the step,
// so two ranks can exchange a chunk in one step. Bytes are the chunk's bytes. A chunk
// written by many transfers of one step is read through a Join over them.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "sim/algo/schedule.hpp"

namespace collsim {

class StepBuilder {
 public:
  explicit StepBuilder(Schedule& s) : s_(s) {}

  // Queues a transfer of the current step.
  void send(int src, int dst, int chunk, TransferKind kind, TransferLeg leg = TransferLeg::EndToEnd,
            bool pipelined = false);
  // Makes the next step wait for every transfer of the step just ended (through a Join),
  // as a rendezvous receiver that posts its receive only after its previous step does.
  void barrier();
  // From now on a rank's sends of a step also wait for all its sends of the previous
  // step: "a rank starts step k+1 once it has sent and received step k", as the ring.
  void pace_senders() { pace_senders_ = true; }
  // Adds the queued transfers to the schedule; returns the ids, in queue order.
  std::vector<TransferId> end_step();

 private:
  struct Writers {
    std::uint32_t step = 0;
    std::vector<TransferId> ids;
    std::int64_t join = -1;  // a Join over ids, made when a reader needs one
  };
  [[nodiscard]] std::uint64_t key(int rank, int chunk) const {
    return static_cast<std::uint64_t>(rank) * s_.chunks().size() + static_cast<std::uint64_t>(chunk);
  }

  Schedule& s_;
  std::unordered_map<std::uint64_t, Writers> writers_;
  std::vector<Transfer> queued_;
  std::vector<TransferId> extra_;  // dependencies of every transfer of this step
  std::vector<TransferId> last_step_;
  std::map<int, std::vector<TransferId>> last_sends_;  // per source rank, when pacing (ordered: join ids)
  bool pace_senders_ = false;
  std::uint32_t step_ = 1;
};

}  // namespace collsim
