// Pipeline-parallel schedules played on per-stage costs: GPipe (all forwards, then all
// backwards), 1F1B (PipeDream-Flush: warm-up forwards, one forward one backward, cool-down)
// and interleaved 1F1B (Megatron-LM: v model chunks per pipeline rank). Each pipeline rank
// runs its operations in the schedule's order; an operation starts when its rank is free and
// its input has arrived (the previous virtual stage's forward, or the next one's backward,
// plus the point-to-point time between the two ranks). Times in ps.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"

namespace collsim {

enum class PipelineKind : std::uint8_t { GPipe, OneFOneB, Interleaved };
template <>
inline constexpr auto kEnumNames<PipelineKind> = names_in_order<PipelineKind>({"gpipe", "1f1b", "interleaved"});

// Costs of one micro-batch, per virtual stage in model order (virtual stage c x pp + r is
// model chunk c on pipeline rank r; pp x v of them).
struct PipelineCosts {
  int pp = 1;
  int virtual_stages = 1;  // v; > 1 only for Interleaved
  int micro_batches = 1;   // m
  std::vector<Time> forward, backward;  // per virtual stage
  // Time an activation (forward) or its gradient (backward) takes from pipeline rank r to
  // r + 1 (index r, pp - 1 entries; the last rank to rank 0 for interleaved wrap-around uses
  // wrap_p2p).
  std::vector<Time> p2p;
  Time wrap_p2p;
  // Megatron-LM waits for its sends (batched isend/irecv, then wait): a rank that sends an
  // activation or a gradient is busy until it has left. Off: sends overlap the next operation.
  bool blocking_sends = true;

  // The hop into virtual stage vs from vs - 1 (forward; backward runs it the other way):
  // between pipeline ranks (vs - 1) mod pp and vs mod pp, wrap_p2p from the last to rank 0.
  [[nodiscard]] Time hop(int vs) const {
    const int from = (vs - 1) % pp;
    return from == pp - 1 ? wrap_p2p : p2p[static_cast<std::size_t>(from)];
  }
};

struct PipelineOp {
  bool forward = true;
  int chunk = 0;        // model chunk on this rank
  int micro_batch = 0;
  Time start, end;
};

struct PipelineRun {
  Time makespan;                            // last operation's end
  std::vector<std::vector<PipelineOp>> ops; // per pipeline rank, in execution order
  std::vector<Time> busy;                   // per rank: sum of its operations
  std::vector<Time> last_backward_end;      // per rank
  std::vector<int> peak_in_flight;          // per rank: most chunk-micro-batches forwarded
                                            // and not yet backwarded (activations held)
  // Idle fraction of the busiest rank's makespan: 1 - busy / makespan (the bubble).
  [[nodiscard]] double bubble_fraction() const;
};

// The order each pipeline rank runs its operations in (chunk and micro-batch of each).
// Throws std::invalid_argument when the schedule cannot run the shape (interleaved needs
// m a multiple of pp; GPipe and 1F1B need v = 1).
[[nodiscard]] std::vector<std::vector<PipelineOp>> pipeline_order(PipelineKind kind, int pp, int v, int m);

// Plays the schedule. Throws std::invalid_argument for a cost vector of the wrong size.
[[nodiscard]] PipelineRun play_pipeline(PipelineKind kind, const PipelineCosts& costs);

}  // namespace collsim
