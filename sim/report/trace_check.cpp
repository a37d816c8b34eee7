#include "sim/report/trace_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace collsim {

namespace {

struct TraceSpan {
  std::int64_t start = 0, end = 0;
  std::size_t index = 0;  // into traceEvents
};

// A ts/dur value in ns as the importer reads it: integers are us; reals are x * 1000,
// truncated (`round` false) or rounded.
std::optional<std::int64_t> to_ns(const nlohmann::json& v, bool round) {
  if (v.is_number_integer()) return v.get<std::int64_t>() * 1000;
  if (!v.is_number()) return std::nullopt;
  const double x = v.get<double>() * 1000.0;
  return round ? static_cast<std::int64_t>(std::llround(x)) : static_cast<std::int64_t>(x);
}

std::string id_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string describe_span(const nlohmann::json& events, const TraceSpan& s) {
  const auto& e = events[s.index];
  return fmt::format("event {} \"{}\" ({}-{} ns)", s.index, e.value("name", std::string("?")), s.start, s.end);
}

// Nesting on each track: sorted by start (longer first), a slice must end no later than
// every open slice it starts inside.
std::optional<std::string> check_nesting(const nlohmann::json& events, std::map<std::string, std::vector<TraceSpan>>& tracks,
                                         const char* reading) {
  for (auto& [key, spans] : tracks) {
    std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan& a, const TraceSpan& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<TraceSpan> open;
    for (const TraceSpan& s : spans) {
      while (!open.empty() && open.back().end <= s.start) open.pop_back();
      if (!open.empty() && s.end > open.back().end) {
        return fmt::format("track {}: {} overlaps {} without nesting ({} reading of ts/dur)", key,
                           describe_span(events, s), describe_span(events, open.back()), reading);
      }
      open.push_back(s);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> first_trace_violation(const nlohmann::json& doc) {
  const nlohmann::json* events = &doc;
  if (doc.is_object()) {
    if (!doc.contains("traceEvents")) return "no \"traceEvents\" array";
    events = &doc["traceEvents"];
  }
  if (!events->is_array()) return "\"traceEvents\" is not an array";
  std::map<std::string, std::vector<TraceSpan>> truncated, rounded;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const auto& e = (*events)[i];
    if (!e.is_object()) return fmt::format("event {} is not an object", i);
    if (!e.contains("ph") || !e["ph"].is_string()) return fmt::format("event {} has no \"ph\" string", i);
    const std::string ph = e["ph"].get<std::string>();
    if (ph == "M") {
      if (e.contains("name") && !e["name"].is_string()) return fmt::format("event {} (metadata) has a \"name\" that is not a string", i);
      const std::string name = e.value("name", std::string());
      if ((name == "thread_name" || name == "process_name") &&
          !(e.contains("args") && e["args"].contains("name") && e["args"]["name"].is_string())) {
        return fmt::format("event {} ({}) has no args.name string", i, name);
      }
      continue;
    }
    if (ph != "X") continue;
    if (!e.contains("name") || !e["name"].is_string()) return fmt::format("event {}: slice without a \"name\" string", i);
    if (!e.contains("pid") || !e.contains("tid")) return fmt::format("event {}: slice without \"pid\" and \"tid\"", i);
    const std::string key = fmt::format("pid {} tid {}", id_of(e["pid"]), id_of(e["tid"]));
    for (bool round : {false, true}) {
      const auto ts = e.contains("ts") ? to_ns(e["ts"], round) : std::nullopt;
      const auto dur = e.contains("dur") ? to_ns(e["dur"], round) : std::nullopt;
      if (!ts || *ts < 0) return fmt::format("event {}: \"ts\" is not a number >= 0 (us)", i);
      if (!dur || *dur < 0) return fmt::format("event {}: \"dur\" is not a number >= 0 (us)", i);
      (round ? rounded : truncated)[key].push_back(TraceSpan{*ts, *ts + *dur, i});
    }
  }
  if (auto v = check_nesting(*events, truncated, "truncating")) return v;
  return check_nesting(*events, rounded, "rounding");
}

}  // namespace collsim
