// Writes a DDP step as Chrome trace event JSON (Perfetto, chrome://tracing): one track
// (thread) per stream, compute and communication, one complete ("X") slice per task.
// Timestamps and durations in microseconds, as the format requires.
#pragma once

#include <ostream>

#include "sim/train/ddp_timeline.hpp"

namespace collsim {

void write_chrome_trace(std::ostream& out, const DdpResult& result, const std::string& title);

}  // namespace collsim
