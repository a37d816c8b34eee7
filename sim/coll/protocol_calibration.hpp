// Reads the protocol-model keys of a calibration document (base_latency, step_latency,
// efficiency, tree_efficiency, slice, channels, channel_bandwidth, ll_max_bandwidth; units as
// in load_calibration) from an open JSON object, so a larger calibration file (link classes
// from `validate --calibrate`, sim/coll/calibration.hpp) can carry them too.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/coll/protocol_model.hpp"
#include "sim/core/json_fields.hpp"

namespace collsim {

// Overrides `m` with the keys present in `f`; the caller calls f.finish(). Returns true
// when at least one protocol-model key was present. ConfigError on a bad value.
bool read_protocol_calibration(JsonFields& f, ProtocolModel& m);

// A time as calibration files write it: whole nanoseconds, rounded ("284215ns").
[[nodiscard]] std::string calibration_time_text(Time t);

// The keys read_protocol_calibration reads back into `m` over `base`, for the entries of
// base_latency, step_latency and efficiency where `m` differs from `base` (what `validate
// --calibrate` fits); an empty object when none differs. Times in whole nanoseconds.
[[nodiscard]] nlohmann::ordered_json protocol_calibration_json(const ProtocolModel& m, const ProtocolModel& base);

}  // namespace collsim
