// Reads nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, broadcast_perf, reduce_perf) in every format generation: current (root
// column, #wrong), 2019-2022 (`error` column, no root), 2017-2018 (times in ms, `res`),
// with or without MPI line prefixes ("[1,0]<stdout>:", "[0] "). Sizes in bytes, times
// converted to Time (ps), algbw/busbw in GB/s (1 GB = 1e9 B) as printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"

namespace collsim {

enum class NcclTestsFormat { Current, Error2019, Ms2017 };
template <>
inline constexpr auto kEnumNames<NcclTestsFormat> = names_in_order<NcclTestsFormat>({"current", "2019-2022", "2017"});

struct NcclTestsResult {  // one of the out-of-place / in-place groups
  Time time;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::string check;  // "#wrong" count, "N/A", an `error` delta like "2e-07", or `res`
};

struct NcclTestsRow {
  int line = 0;  // 1-based line in the file
  Bytes size;
  std::int64_t count = 0;
  std::string type;
  std::string redop;              // empty when the format has no redop column
  std::optional<int> root;        // current format only (-1 for rootless collectives)
  NcclTestsResult out_of_place;
  std::optional<NcclTestsResult> in_place;
};

// One "NCCL INFO NAME set by environment to VALUE" line of a log captured with
// NCCL_DEBUG=INFO (NCCL's param.cc and ncclGetEnv print one per variable it reads, on
// every rank): the environment the run was launched with. `value` has NCCL's trailing
// "." of integer parameters removed.
struct NcclLogVariable {
  std::string name;   // "NCCL_ALGO"
  std::string value;  // "Tree"
  int line = 0;       // 1-based line of its first appearance
};

struct NcclTestsRun {
  std::string source;     // file name
  int first_line = 0;
  NcclTestsFormat format = NcclTestsFormat::Current;
  CollectiveOp op = CollectiveOp::AllReduce;
  int ranks = 0;
  std::string ranks_from;   // how the rank count was found ("rank lines", "busbw/algbw", ...)
  std::optional<double> avg_busbw_gbps;  // the footer's "Avg bus bandwidth"
  // nGpus of the "nThread T nGpus G" line: GPUs one CPU thread launches every operation
  // on (-g G); 1 when the log does not say (one process per GPU, mpirun's usual launch).
  int gpus_per_thread = 1;
  // The NCCL variables the log shows set for this run (before or inside its table), one
  // entry per name and value in order of appearance; a table pasted after another one
  // without a header of its own keeps the previous run's.
  std::vector<NcclLogVariable> nccl_env;
  std::vector<NcclTestsRow> rows;
};

struct NcclTestsImportOptions {
  std::optional<CollectiveOp> op;  // overrides what the log says
  std::optional<int> ranks;        // overrides what the log implies
};

// Reads every table in the file (a file may hold several runs). Throws ConfigError
// naming the file and line when a line cannot be read, or when the collective or the
// rank count cannot be told (pass them in `options`).
[[nodiscard]] std::vector<NcclTestsRun> import_nccl_tests_log(const std::string& path, const NcclTestsImportOptions& options = {});
[[nodiscard]] std::vector<NcclTestsRun> parse_nccl_tests_log(const std::string& text, const std::string& source,
                                                             const NcclTestsImportOptions& options = {});

}  // namespace collsim
