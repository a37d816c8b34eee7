#include "sim/report/trace_writer.hpp"

#include <nlohmann/json.hpp>

namespace collsim {

namespace {

constexpr int kComputeTid = 1;
constexpr int kCommTid = 2;

double us(Time t) { return static_cast<double>(t.ps) / Time::kPerUs; }

nlohmann::ordered_json thread_name(int tid, const char* name) {
  return {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

void write_chrome_trace(std::ostream& out, const DdpResult& r, const std::string& title) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", title}}}});
  events.push_back(thread_name(kComputeTid, "compute stream"));
  events.push_back(thread_name(kCommTid, "communication stream"));
  for (std::size_t i = 0; i < r.program.compute.size(); ++i) {
    const auto& task = r.program.compute[i];
    const auto& iv = r.timeline.compute[i];
    if (iv.end == iv.start) continue;  // zero-length tasks (e.g. no copy-out) carry no slice
    events.push_back({{"name", task.name}, {"cat", task.category}, {"ph", "X"}, {"pid", 1}, {"tid", kComputeTid},
                      {"ts", us(iv.start)}, {"dur", us(iv.end - iv.start)}});
  }
  for (std::size_t i = 0; i < r.program.comm.size(); ++i) {
    const auto& task = r.program.comm[i];
    const auto& iv = r.timeline.comm[i];
    nlohmann::ordered_json args = {{"bytes", task.bytes.count}};
    if (task.bucket) args["bucket"] = *task.bucket;
    events.push_back({{"name", task.name}, {"cat", task.category}, {"ph", "X"}, {"pid", 1}, {"tid", kCommTid},
                      {"ts", us(iv.start)}, {"dur", us(iv.end - iv.start)}, {"args", args}});
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  out << doc.dump(1) << "\n";
}

}  // namespace collsim
