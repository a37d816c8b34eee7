// Writes `collsim topo nccl`: NCCL's view of a topology (header, host 0's path-type
// matrices, the ring channel graph in NCCL_DEBUG_SUBSYS=GRAPH's style, the tuning
// model's figures for a large all-reduce) as text or one JSON object. Latencies in us,
// bandwidths in GB/s (1 GB = 1e9 B).
#pragma once

#include <ostream>

#include "sim/coll/nccl_graph_summary.hpp"
#include "sim/report/table_model.hpp"

namespace collsim {

// The report as text (also for --format csv) or JSON; the views read `summary`, which
// must outlive them.
[[nodiscard]] ReportViews nccl_graph_report_views(const NcclGraphSummary& summary);

}  // namespace collsim
