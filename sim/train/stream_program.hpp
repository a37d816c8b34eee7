// A two-stream GPU program and its player: a compute stream that runs tasks one after
// another (each may wait for communication tasks), and a communication stream that runs
// collectives in issue order, at most `comm_concurrency` at once. Works are durations in
// ps when run alone; concurrent collectives share bandwidth equally (processor sharing),
// and compute can be slowed while any collective runs. One host thread launches every
// task in program order (the collectives a task issues right after it), each launch
// taking the task's `launch` CPU time from the step's start: no task starts on its stream
// before the host has launched it (host_launch_times).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

enum class Stream : std::uint8_t { Compute, Communication };

struct CommTask {
  std::string name;
  std::string category;        // "allreduce", "broadcast", ...
  Time work;                   // duration when running alone
  std::vector<std::size_t> after;  // comm tasks that must finish first
  std::optional<std::size_t> bucket;
  Bytes bytes;                 // bytes per rank on the wire
  bool issued_at_start = false;  // issued at time 0 (before any compute)
  // Compute tasks that must have finished before it starts (a GPU event it waits on, e.g.
  // FSDP's all-gather rate limiter). While it waits, the collectives issued after it wait
  // too: the communication stream runs in issue order.
  std::vector<std::size_t> after_compute;
  Time launch;                 // host CPU time to launch it (host_costs.hpp); 0: none
  double compute_slowdown = 0; // compute runs at 1/(1+s) while it runs (interference.hpp)
};

struct ComputeTask {
  std::string name;
  std::string category;        // "forward", "backward", "copy_in", "cast", "copy_out", "optimizer", ...
  Time work;
  std::vector<std::size_t> wait;   // comm tasks that must have finished before it starts
  std::vector<std::size_t> issue;  // comm tasks issued (in this order) when it finishes
  Time launch;                     // host CPU time to launch it (host_costs.hpp); 0: none
};

struct StreamProgram {
  std::vector<ComputeTask> compute;
  std::vector<CommTask> comm;
};

struct StreamOptions {
  int comm_concurrency = 1;      // NCCL: 1; Gloo: 2
  double compute_slowdown = 0;   // compute runs at 1/(1+s) of its speed while comm runs, or
                                 // at the largest running collective's own slowdown if larger
};

struct Interval {
  Time start;
  Time end;
};

// When the host thread has launched each task (sums of `launch` in program order: the
// collectives issued at the start, then each compute task followed by those it issues).
struct HostLaunches {
  std::vector<Time> compute;
  std::vector<Time> comm;
  Time total;  // the host's busy time for the step
};
[[nodiscard]] HostLaunches host_launch_times(const StreamProgram& p);

struct StreamTimeline {
  std::vector<Interval> compute;   // per compute task
  std::vector<Interval> comm;      // per comm task
  std::vector<Time> comm_issued;   // when each comm task was issued (its stream dependency met and
                                   // the host has launched it)
  Time end;                        // when both streams are idle
  HostLaunches host;               // when the host launched each task (host_launch_times)
};

// What a played program adds up to: compute time per task category, the communication
// stream's summed and busy (union) time, the end, the time the compute stream waits for
// its next task's host launch (host_wait), the communication it waits for (end - compute
// busy - host_wait) and the share of busy communication hidden behind compute.
struct StreamTotals {
  std::map<std::string, Time> compute_by_category;
  Time compute_busy, comm_total, comm_busy, end, exposed_comm, host_wait;
  double overlap_percent = 0;

  [[nodiscard]] Time compute(const std::string& category) const;  // 0 when absent
};

[[nodiscard]] StreamTotals stream_totals(const StreamProgram& p, const StreamTimeline& t);


// Plays the program. Throws InternalError if a task waits on a comm task never issued.
[[nodiscard]] StreamTimeline play_streams(const StreamProgram& p, const StreamOptions& o);

}  // namespace collsim
