// Predicts measured cases and compares: one row per measurement with measured and
// predicted time (ps) and the relative error predicted/measured - 1, plus summary figures
// (median and max absolute error, geometric-mean ratio). Topologies are loaded once per
// file, cut to each case's rank count, and optionally calibrated.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/measure/ddp_prediction.hpp"
#include "sim/measure/measurement.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct ValidationRow {
  std::string source;
  std::string kind;       // "collective" or "ddp"
  std::string case_name;  // "allreduce ring n=4 1MiB", "ddp mlp n=2 bucket=25MB"
  std::string algorithm;
  int ranks = 0;
  Bytes size;
  Time measured;
  std::optional<Time> predicted;
  std::string note;       // why there is no prediction, or a remark beside one
  double bucket_cap_mb = 0;  // ddp rows: DDP's bucket_cap_mb (MiB)
  std::string group;         // ddp rows: the runs that differ only in bucket_cap_mb
  [[nodiscard]] std::optional<double> error() const;  // predicted / measured - 1
};

struct ValidationSummary {
  int rows = 0;
  int predicted = 0;
  double median_abs_error = 0;  // fractions
  double max_abs_error = 0;
  double geomean_ratio = 1;     // geometric mean of predicted / measured
};

[[nodiscard]] ValidationSummary summarize(const std::vector<ValidationRow>& rows);

// Predicts one DDP iteration (validate passes predict_ddp_measurement, ddp_prediction.hpp);
// no iteration, with the reason in `note`, when it cannot. Arguments: the measurement, its
// topology (cut to its ranks, calibrated), the --workload file (may be empty), and the
// calibration's compute slowdown while communicating (0 without one).
using DdpPredictor = std::function<DdpPredictionResult(const DdpMeasurement&, const Topology&, const std::string& workload,
                                                       double comm_slowdown)>;

class CasePredictor {
 public:
  // `default_algorithm` and `default_protocol` price measurements that name no algorithm
  // (nccl-tests logs): a name, a list or "auto" (selection.hpp), as `collective` takes
  // them. Records that name their algorithm (collsim-exec over TCP) run it with the ideal
  // protocol: their schedules are collsim's own, not NCCL's.
  CasePredictor(std::string default_topology, std::string default_algorithm, std::string default_protocol = "ideal");

  // A calibration's link classes apply to the topologies, its protocol-model constants to
  // every case priced under NCCL's protocols (the ideal protocol has none).
  void set_calibration(std::optional<Calibration> c);
  [[nodiscard]] const std::optional<Calibration>& calibration() const { return calibration_; }
  // The command's NCCL knobs (--nccl-env and the single options). nccl-tests rows are
  // priced with NCCL's defaults under the knobs their log shows set ("NCCL INFO NCCL_ALGO
  // set by environment to Tree"), the command's replacing any the log sets too. A log's
  // NCCL_ALGO / NCCL_PROTO apply where the default algorithm / protocol is auto.
  void set_nccl_env(NcclEnv command) { command_env_ = std::move(command); }
  // The knobs of `m`'s log that its prediction applies, as "NAME=VALUE" (the command's
  // replace theirs). Throws ConfigError naming the log, the line, the variable and what
  // was expected for a bad value, or for two values of one knob.
  [[nodiscard]] std::vector<std::string> log_knobs_applied(const CollectiveMeasurement& m) const;
  // The algorithm a measurement is predicted with (its own, else the default).
  [[nodiscard]] const std::string& algorithm_for(const CollectiveMeasurement& m) const {
    return m.algorithm.empty() ? default_algorithm_ : m.algorithm;
  }
  // Predicted time of a measured collective, with the algorithm and protocol chosen.
  // Throws ConfigError (naming the measurement) for a missing topology, too many ranks,
  // or an unknown algorithm or protocol.
  [[nodiscard]] CollectivePrediction predict_case(const CollectiveMeasurement& m);
  [[nodiscard]] Time predict(const CollectiveMeasurement& m) { return predict_case(m).time; }
  // The slowest NCCL latency class the measurement's steps cross: NET across hosts, else
  // NVLINK or PCI as NCCL prices the host's channels (its intraHw).
  [[nodiscard]] LinkClass slowest_class(const CollectiveMeasurement& m);
  // The topology a measurement runs on (loaded, cut to its ranks, calibrated).
  [[nodiscard]] const Topology& topology_for(const std::string& source, const std::string& path, int ranks);

 private:
  struct Entry {
    std::unique_ptr<Topology> topo;
    std::unique_ptr<LinkGraph> graph;
    // NCCL's channel graph of this topology, searched once per set of search options.
    std::vector<std::pair<NcclSearchOptions, std::shared_ptr<const std::optional<NcclGraph>>>> channel_graphs;
  };
  // The protocol model `m` is priced with: the calibration's (else NCCL's) under the
  // command's knobs, over `log`'s knobs for a log's row.
  [[nodiscard]] ProtocolModel model_for(const CollectiveMeasurement& m, const NcclEnv& log) const;
  // The channel graph of `e` under `model`'s search options (searched on first use).
  static std::shared_ptr<const std::optional<NcclGraph>> channel_graph(Entry& e, const ProtocolModel& model);
  std::string default_topology_;
  std::string default_algorithm_;
  std::string default_protocol_;
  std::optional<Calibration> calibration_;
  NcclEnv command_env_;
  std::map<std::string, Topology> loaded_;
  std::map<std::pair<std::string, int>, Entry> graphs_;
};

[[nodiscard]] std::vector<ValidationRow> validate(const MeasurementSet& set, CasePredictor& predictor,
                                                  const DdpPredictor& ddp, const std::string& workload = {});

}  // namespace collsim
