// Work items (sim/core/work_pool.hpp) spread over the ranks of an MPI job. Rank 0 hands
// out items one at a time (heaviest first) to whichever rank asks, runs items on its own
// threads too, gathers every result, journals it and returns them in item order, as
// ThreadRunner does. The other ranks evaluate what they are given and, when no item is
// left, leave run() by throwing WorkerRankDone: the command's output is rank 0's alone.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>

#include "sim/core/work_pool.hpp"

namespace collsim {

// Thrown by MpiRunner::run on ranks other than 0 once their items are done: not an error,
// and deliberately not a std::exception, so that no error handler on the way up to
// collsim-mpi's main() takes it for one.
struct WorkerRankDone {};

class MpiRunner final : public WorkRunner {
 public:
  // `threads_may_call`: MPI gave MPI_THREAD_SERIALIZED or more, so worker ranks may run
  // several threads (each talks to rank 0 in turn); otherwise they run one.
  MpiRunner(MPI_Comm comm, bool threads_may_call);

  [[nodiscard]] std::vector<nlohmann::json> run(const std::vector<WorkItem>& items, const WorkFn& fn,
                                                const WorkOptions& options, WorkStats* stats = nullptr) const override;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  // On a worker rank whose command ended without reaching run() (bad input seen only
  // there, --help): tells rank 0 not to wait for it, with what it printed on stderr.
  void leave_without_serving(const std::string& why) const;

 private:
  std::vector<nlohmann::json> coordinate(const std::vector<WorkItem>& items, const WorkFn& fn, const WorkOptions& options,
                                         WorkStats* stats) const;
  [[noreturn]] void serve(const WorkFn& fn, const WorkOptions& options) const;

  MPI_Comm comm_;
  bool threads_may_call_;
  int rank_ = 0;
  int size_ = 1;
  mutable std::atomic<bool> served_{false};
};

}  // namespace collsim
