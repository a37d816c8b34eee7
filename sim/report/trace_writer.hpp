// Writes a training step as Chrome trace event JSON (Perfetto, chrome://tracing): one
// track per stream, compute and communication, one complete ("X") slice per task. When
// collectives run concurrently (Gloo's two worker threads, FSDP's prefetched all-gathers)
// the communication track gets extra lanes ("communication stream #2") so no two slices
// on one track overlap. Timestamps and durations in microseconds, as the format requires.
#pragma once

#include <ostream>
#include <string>

#include "sim/train/ddp_timeline.hpp"
#include "sim/train/sharded_timeline.hpp"

namespace collsim {

void write_stream_trace(std::ostream& out, const StreamProgram& program, const StreamTimeline& timeline,
                        const std::string& title);
void write_chrome_trace(std::ostream& out, const DdpResult& result, const std::string& title);
void write_chrome_trace(std::ostream& out, const ShardedResult& result, const std::string& title);

}  // namespace collsim
