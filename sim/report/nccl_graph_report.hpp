// Writes `collsim topo nccl`: NCCL's view of a topology (header, host 0's path-type
// matrices, the ring channel graph in NCCL_DEBUG_SUBSYS=GRAPH's style, the tuning
// model's figures for a large all-reduce) as text or one JSON object. Latencies in us,
// bandwidths in GB/s (1 GB = 1e9 B).
#pragma once

#include <ostream>

#include "sim/coll/nccl_graph_summary.hpp"

namespace collsim {

enum class NcclReportFormat { Text, Json };

void write_nccl_graph_report(std::ostream& out, const NcclGraphSummary& summary, NcclReportFormat format);

}  // namespace collsim
