// Reads the protocol-model keys of a calibration document (base_latency, step_latency,
// efficiency, tree_efficiency, slice, channels, channel_bandwidth, ll_max_bandwidth; units as
// in load_calibration) from an open JSON object, so a larger calibration file (link classes
// from `validate --calibrate`, sim/measure/calibration.hpp) can carry them too.
#pragma once

#include "sim/coll/protocol_model.hpp"
#include "sim/core/json_fields.hpp"

namespace collsim {

// Overrides `m` with the keys present in `f`; the caller calls f.finish(). Returns true
// when at least one protocol-model key was present. ConfigError on a bad value.
bool read_protocol_calibration(JsonFields& f, ProtocolModel& m);

}  // namespace collsim
