#include "sim/report/chrome_trace.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/version.hpp"

namespace collsim {

namespace {

nlohmann::ordered_json metadata(const char* what, int pid, int tid, nlohmann::ordered_json args) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

double perfetto_us(std::int64_t ns) {
  // ns / 1000 is rarely exact in binary; when it lies just below, x * 1000 truncates to
  // ns - 1. Step up one ulp at a time (a few at most) until it does not: rounding still
  // gives ns, since the value stays within a few ulps of ns / 1000.
  double x = static_cast<double>(ns) / 1000.0;
  while (static_cast<std::int64_t>(x * 1000.0) < ns) x = std::nextafter(x, HUGE_VAL);
  return x;
}

std::int64_t trace_ns(Time t) {
  const std::int64_t half = Time::kPerNs / 2;
  return t.ps >= 0 ? (t.ps + half) / Time::kPerNs : -((-t.ps + half) / Time::kPerNs);
}

int ChromeTrace::add_process(std::string name) {
  processes_.push_back(std::move(name));
  return static_cast<int>(processes_.size());
}

int ChromeTrace::add_track(int pid, std::string name) {
  if (pid < 1 || pid > static_cast<int>(processes_.size())) throw std::out_of_range("ChromeTrace: unknown pid");
  tracks_.push_back(Track{pid, std::move(name), {}});
  return static_cast<int>(tracks_.size()) - 1;
}

void ChromeTrace::add_slice(int track, std::string name, std::string category, Time start, Time end,
                            nlohmann::ordered_json args) {
  if (end < start) throw std::invalid_argument(fmt::format("ChromeTrace: slice {} ends before it starts", name));
  tracks_.at(static_cast<std::size_t>(track))
      .slices.push_back(
          Slice{std::move(name), std::move(category), start, end, trace_ns(start), trace_ns(end), std::move(args)});
}

void ChromeTrace::write(std::ostream& out) const {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  nlohmann::ordered_json slices = nlohmann::ordered_json::array();
  for (std::size_t p = 0; p < processes_.size(); ++p) {
    const int pid = static_cast<int>(p) + 1;
    events.push_back(metadata("process_name", pid, 0, {{"name", processes_[p]}}));
    events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
    int next_tid = 1;
    for (const Track& track : tracks_) {
      if (track.pid != pid) continue;
      // Simulated start order (longer first on ties), then insertion order: deterministic.
      // A slice takes the first lane whose last slice has ended (in ns), so a lane's slices
      // never overlap. Ordering by ps, not ns, keeps sub-ns tasks that follow one another
      // on one lane: rounding to ns is monotonic, so an end <= a later start survives it.
      std::vector<std::size_t> order(track.slices.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Slice& x = track.slices[a];
        const Slice& y = track.slices[b];
        if (x.start != y.start) return x.start < y.start;
        return x.end > y.end;
      });
      std::vector<std::int64_t> lane_end;
      std::vector<std::vector<std::size_t>> lanes;
      for (std::size_t i : order) {
        const Slice& s = track.slices[i];
        std::size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane] > s.start_ns) ++lane;
        if (lane == lane_end.size()) {
          lane_end.push_back(s.end_ns);
          lanes.emplace_back();
        }
        lane_end[lane] = s.end_ns;
        lanes[lane].push_back(i);
      }
      if (lanes.empty()) lanes.emplace_back();  // an empty track still shows, named
      for (std::size_t l = 0; l < lanes.size(); ++l) {
        const int tid = next_tid++;
        const std::string name = l == 0 ? track.name : fmt::format("{} #{}", track.name, l + 1);
        events.push_back(metadata("thread_name", pid, tid, {{"name", name}}));
        events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
        for (std::size_t i : lanes[l]) {
          const Slice& s = track.slices[i];
          nlohmann::ordered_json e = {{"name", s.name},
                                      {"cat", s.category},
                                      {"ph", "X"},
                                      {"pid", pid},
                                      {"tid", tid},
                                      {"ts", perfetto_us(s.start_ns)},
                                      {"dur", perfetto_us(s.end_ns - s.start_ns)}};
          if (!s.args.is_null()) e["args"] = s.args;
          slices.push_back(std::move(e));
        }
      }
    }
  }
  for (auto& e : slices) events.push_back(std::move(e));
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{kVersionKey, version_string()}};  // the trace viewers' metadata panel
  out << doc.dump(1) << "\n";
}

}  // namespace collsim
