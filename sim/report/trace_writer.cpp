#include "sim/report/trace_writer.hpp"

#include "sim/report/chrome_trace.hpp"

namespace collsim {

void write_stream_trace(std::ostream& out, const StreamProgram& p, const StreamTimeline& t, const std::string& title) {
  ChromeTrace trace;
  const int pid = trace.add_process(title);
  const int compute = trace.add_track(pid, "compute stream");
  const int comm = trace.add_track(pid, "communication stream");
  for (std::size_t i = 0; i < p.compute.size(); ++i) {
    const auto& task = p.compute[i];
    const auto& iv = t.compute[i];
    if (iv.end == iv.start) continue;  // zero-length tasks (e.g. no copy-out) carry no slice
    trace.add_slice(compute, task.name, task.category, iv.start, iv.end);
  }
  for (std::size_t i = 0; i < p.comm.size(); ++i) {
    const auto& task = p.comm[i];
    const auto& iv = t.comm[i];
    nlohmann::ordered_json args = {{"bytes", task.bytes.count}};
    if (task.bucket) args["bucket"] = *task.bucket;
    trace.add_slice(comm, task.name, task.category, iv.start, iv.end, std::move(args));
  }
  trace.write(out);
}

void write_chrome_trace(std::ostream& out, const DdpResult& r, const std::string& title) {
  write_stream_trace(out, r.program, r.timeline, title);
}

void write_chrome_trace(std::ostream& out, const ShardedResult& r, const std::string& title) {
  write_stream_trace(out, r.program, r.timeline, title);
}

}  // namespace collsim
