#include "sim/train/failure_trace.hpp"

#include <limits>

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"

namespace collsim {

double FailureTrace::mtbf_s() const {
  if (interruptions.empty()) return std::numeric_limits<double>::infinity();
  return end_s / static_cast<double>(interruptions.size());
}

FailureTrace parse_failure_trace(const nlohmann::json& j, const std::string& source) {
  JsonFields top(j, source, "");
  FailureTrace t;
  t.source = source;
  t.description = top.optional_string("description").value_or("");
  const nlohmann::json& list = top.array("interruptions");
  if (list.size() > kMaxTraceInterruptions) {
    top.fail("interruptions", fmt::format("{} interruptions", list.size()),
             fmt::format("at most {} interruptions", kMaxTraceInterruptions));
  }
  const std::optional<double> end = top.optional_duration_s("end");
  top.finish();
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], source, fmt::format("/interruptions/{}", i));
    TraceInterruption x;
    x.at_s = f.duration_s("at");
    if (!t.interruptions.empty() && !(x.at_s > t.interruptions.back().at_s)) {
      f.fail("at", brief(list[i].at("at")),
             fmt::format("a time after the interruption before it ({} at /interruptions/{}/at): "
                         "interruptions in order, one at a time",
                         brief(list[i - 1].at("at")), i - 1));
    }
    x.cause = f.optional_string("cause").value_or("");
    f.finish();
    t.interruptions.push_back(std::move(x));
  }
  t.end_s = t.interruptions.empty() ? 0 : t.interruptions.back().at_s;
  if (end) {
    if (*end < t.end_s) {
      top.fail("end", brief(j.at("end")),
               fmt::format("the end of the observation, at or after the last interruption ({} at /interruptions/{}/at)",
                           brief(list.back().at("at")), list.size() - 1));
    }
    t.end_s = *end;
  }
  return t;
}

FailureTrace load_failure_trace(const std::string& path) { return parse_failure_trace(read_json_file(path), path); }

}  // namespace collsim
