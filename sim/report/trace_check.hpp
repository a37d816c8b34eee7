// Checks a Chrome trace event JSON document against the rules Perfetto's JSON importer
// applies to complete ("X") slices: each has a name, a pid and tid, a non-negative "ts"
// and "dur" in us; on one track (same pid and tid) two slices either nest (one contains
// the other entirely) or do not overlap. Times are compared in whole ns the way the
// importer reads them, under both its readings of a fractional value (truncated or
// rounded x * 1000), so a trace that passes here imports cleanly in old and new Perfetto.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace collsim {

// The first violation found (event indices into traceEvents), or nullopt when the trace
// keeps every rule. Accepts {"traceEvents": [...]} or a bare array.
[[nodiscard]] std::optional<std::string> first_trace_violation(const nlohmann::json& doc);

}  // namespace collsim
