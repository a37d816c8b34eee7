// Writes one predicted collective as Chrome trace event JSON (Perfetto): a "collective"
// process with the whole operation (base latency first), then one process per rank with
// a send and a receive track per channel, each transfer a slice on its sender's and its
// receiver's track, from when its dependencies were met to its last byte. Concurrent
// transfers of one track go to extra lanes (chrome_trace.hpp). Times in us.
#pragma once

#include <ostream>
#include <string>

#include "sim/coll/predict.hpp"

namespace collsim {

void write_collective_trace(std::ostream& out, const CollectivePrediction& prediction, const CollectiveReplay& replay,
                            const std::string& topology);

}  // namespace collsim
