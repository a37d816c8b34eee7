// DDP's communication outside the steady step: the start-up broadcast of every parameter
// and buffer from rank 0 (DistributedDataParallel.__init__ with init_sync=True:
// _sync_module_states -> _broadcast_coalesced in 250 MiB chunks) and join() for uneven
// inputs (torch.distributed.algorithms.Join with DDP's join hook): each rank trains on its
// own number of batches; a rank out of batches shadows the others' collectives (zeros in
// the join signal and in every bucket's all-reduce) until the last rank is done, and the
// last to finish broadcasts the final model (_sync_final_model). Times in ps.
#pragma once

#include <vector>

#include "sim/train/ddp_timeline.hpp"

namespace collsim {

// The coalesced broadcast's chunks (bytes each) of the workload's parameters then buffers:
// tensors grouped by dtype in order, a group sent once it reaches `limit` bytes (a tensor is
// never split; torch/csrc/utils/tensor_flatten.cpp take_tensors), the rest at the end.
[[nodiscard]] std::vector<Bytes> module_state_chunks(const Workload& w, std::int64_t limit = kBroadcastCoalescedBytes);

// The broadcasts one after another (DDP's constructor waits for them).
[[nodiscard]] Time module_state_broadcast(const Workload& w, const CollectiveCostFn& cost);

struct JoinRun {
  std::vector<int> batches;  // per rank
  int steps = 0;             // the run: the most batches of any rank
  Time step;                 // one step with the join signal's all-reduce
  Time final_sync;           // the last rank's broadcast of the model
  Time total;                // steps x step + final_sync
  std::int64_t shadow_rank_steps = 0;  // sum over ranks of steps spent shadowing (idle compute)
};

// `batches` per rank (each >= 1). Throws ConfigError (empty source, field "join") for an
// empty list or a count below 1.
[[nodiscard]] JoinRun simulate_join(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                    const DdpOptions& o, const std::vector<int>& batches);

}  // namespace collsim
