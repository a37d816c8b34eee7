#include "sim/measure/validation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/link_class.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/loader.hpp"

namespace collsim {

std::optional<double> ValidationRow::error() const {
  if (!predicted || measured.ps <= 0) return std::nullopt;
  return static_cast<double>(predicted->ps) / static_cast<double>(measured.ps) - 1.0;
}

ValidationSummary summarize(const std::vector<ValidationRow>& rows) {
  ValidationSummary s;
  s.rows = static_cast<int>(rows.size());
  std::vector<double> abs;
  double log_sum = 0;
  for (const auto& r : rows) {
    const auto e = r.error();
    if (!e) continue;
    abs.push_back(std::abs(*e));
    log_sum += std::log1p(*e);
  }
  s.predicted = static_cast<int>(abs.size());
  if (abs.empty()) return s;
  std::sort(abs.begin(), abs.end());
  const std::size_t n = abs.size();
  s.median_abs_error = n % 2 ? abs[n / 2] : (abs[n / 2 - 1] + abs[n / 2]) / 2;
  s.max_abs_error = abs.back();
  s.geomean_ratio = std::exp(log_sum / static_cast<double>(n));
  return s;
}

CasePredictor::CasePredictor(std::string default_topology, std::string default_algorithm, std::string default_protocol)
    : default_topology_(std::move(default_topology)),
      default_algorithm_(std::move(default_algorithm)),
      default_protocol_(std::move(default_protocol)) {}

void CasePredictor::set_calibration(std::optional<Calibration> c) {
  // The topologies (and their channel graphs) change only with the link classes.
  const bool same_links = calibration_.has_value() == c.has_value() && (!c || calibration_->links == c->links);
  calibration_ = std::move(c);
  if (!same_links) graphs_.clear();
}

std::shared_ptr<const std::optional<NcclGraph>> CasePredictor::channel_graph(Entry& e, const ProtocolModel& model) {
  const NcclSearchOptions options = nccl_search_options(model);
  for (const auto& [o, g] : e.channel_graphs) {
    if (o == options) return g;
  }
  auto g = std::make_shared<const std::optional<NcclGraph>>(
      search_nccl_ring(*e.graph, topology_facts(*e.topo).host_of_rank, options));
  e.channel_graphs.emplace_back(options, g);
  return g;
}

const Topology& CasePredictor::topology_for(const std::string& source, const std::string& path_in, int ranks) {
  const std::string& path = path_in.empty() ? default_topology_ : path_in;
  if (path.empty()) {
    throw ConfigError(source, "topology", "none", "a topology: pass --topology or name one in the measurement record");
  }
  auto key = std::make_pair(path, ranks);
  auto it = graphs_.find(key);
  if (it != graphs_.end()) return *it->second.topo;
  auto loaded = loaded_.find(path);
  if (loaded == loaded_.end()) loaded = loaded_.emplace(path, load_topology_file(path)).first;
  const Topology& base = loaded->second;
  if (ranks > base.rank_count()) {
    throw ConfigError(source, "ranks", std::to_string(ranks),
                      fmt::format("at most {} ranks (topology {} has {}): mismatched rank count", base.rank_count(), path,
                                  base.rank_count()));
  }
  Entry e;
  e.topo = std::make_unique<Topology>(base);
  e.topo->ranks.resize(static_cast<std::size_t>(ranks));
  if (calibration_) apply_calibration(*e.topo, *calibration_);
  e.graph = std::make_unique<LinkGraph>(*e.topo);
  return *graphs_.emplace(key, std::move(e)).first->second.topo;
}

namespace {

// The knobs collsim models among the variables `m`'s log shows set, each parsed as NCCL
// reads it; `knobs` gets those variables. Errors name the log's file and line.
NcclEnv knobs_of_log(const CollectiveMeasurement& m, std::vector<const NcclLogVariable*>* knobs) {
  const std::string file = m.source.substr(0, m.source.rfind(':'));
  NcclEnv env;
  for (const NcclLogVariable& v : m.nccl_env) {
    if (!is_nccl_knob(v.name)) continue;  // NCCL_IB_HCA, NCCL_DEBUG, ...: nothing collsim models
    const std::string where = fmt::format("{} line {}", file, v.line);
    for (const NcclLogVariable& earlier : m.nccl_env) {
      if (&earlier == &v) break;
      if (earlier.name == v.name) {
        throw ConfigError(where, v.name, in_quotes(v.value),
                          fmt::format("the value line {} gives ({}): one value on every rank of a run", earlier.line,
                                      in_quotes(earlier.value)));
      }
    }
    set_nccl_variable(env, v.name, v.value, where);
    if (knobs != nullptr) knobs->push_back(&v);
  }
  return env;
}

}  // namespace

std::vector<std::string> CasePredictor::log_knobs_applied(const CollectiveMeasurement& m) const {
  if (!m.algorithm.empty()) return {};
  std::vector<const NcclLogVariable*> knobs;
  (void)knobs_of_log(m, &knobs);
  std::vector<std::string> applied;
  for (const NcclLogVariable* v : knobs) {
    // The command's knob replaces the log's; NCCL_ALGO / NCCL_PROTO apply under auto.
    const bool kept = v->name == "NCCL_ALGO"    ? is_auto(algorithm_for(m))
                      : v->name == "NCCL_PROTO" ? is_auto(default_protocol_)
                                                : !sets_knob(command_env_, v->name);
    if (kept) applied.push_back(fmt::format("{}={}", v->name, v->value));
  }
  return applied;
}

LinkClass CasePredictor::slowest_class(const CollectiveMeasurement& m) {
  const std::string& path = m.topology.empty() ? default_topology_ : m.topology;
  const Topology& topo = topology_for(m.source, path, m.ranks);
  const TopologyFacts facts = topology_facts(topo);
  if (facts.hosts > 1) return LinkClass::Net;
  const ProtocolModel model = model_for(m, knobs_of_log(m, nullptr));
  const auto& graph = *channel_graph(graphs_.at(std::make_pair(path, m.ranks)), model);
  return nccl_intra_class(facts, graph ? &*graph : nullptr);
}

ProtocolModel CasePredictor::model_for(const CollectiveMeasurement& m, const NcclEnv& log) const {
  return calibrated_protocol_model(calibration_,
                                   m.algorithm.empty() ? overlay_nccl_env(log, command_env_) : command_env_);
}

CollectivePrediction CasePredictor::predict_case(const CollectiveMeasurement& m) {
  std::string algo = algorithm_for(m);
  std::string protocol = default_protocol_;
  CollectiveRequest request;
  bool algo_from_log = false;
  NcclEnv log;
  if (m.algorithm.empty()) {
    log = knobs_of_log(m, nullptr);
    algo_from_log = log.algo && is_auto(algo);
    if (algo_from_log) algo = *log.algo;
    if (log.proto && is_auto(protocol)) protocol = *log.proto;
  }
  request.model = model_for(m, log);
  auto bad_algorithm = [&] {
    std::vector<std::string> implementing;  // the op's algorithms only: the rejected name is not among them
    for (const std::string& name : algorithm_names()) {
      if (supports(name, m.op)) implementing.push_back(name);
    }
    return ConfigError(m.source, "algorithm", in_quotes(algo),
                       fmt::format("an algorithm this build implements for {}, a list or auto: {}{}", to_string(m.op),
                                   fmt::join(implementing, ", "),
                                   algo_from_log ? " (the log's NCCL_ALGO set it; --algo or --nccl-algo replace it)" : ""));
  };
  if (!m.algorithm.empty()) {
    if (!is_algorithm(algo) || !supports(algo, m.op)) throw bad_algorithm();
    request.algorithms = {algo};
    request.protocols = {Protocol::Ideal};
  } else {
    try {
      request.algorithms = parse_algorithm_list(algo, m.op);
    } catch (const std::invalid_argument&) {
      throw bad_algorithm();
    }
    if (request.algorithms.size() == 1 && !supports(request.algorithms.front(), m.op)) throw bad_algorithm();
    try {
      request.protocols = parse_protocol_list(protocol);
      request.protocols_auto = is_auto(protocol);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(m.source, "protocol", in_quotes(protocol),
                        fmt::format("ideal, ll, ll128, simple, a list or auto ({})", e.what()));
    }
  }
  const std::string& path = m.topology.empty() ? default_topology_ : m.topology;
  (void)topology_for(m.source, path, m.ranks);
  Entry& entry = graphs_.at(std::make_pair(path, m.ranks));
  const Collective c{m.op, m.ranks, 0, m.size};
  request.gpus_per_thread = m.gpus_per_thread;
  const auto nccl = [](Protocol p) { return p != Protocol::Ideal; };
  if (std::any_of(request.protocols.begin(), request.protocols.end(), nccl)) {
    request.channel_graph = channel_graph(entry, request.model);
  }
  LinkGraph& g = *entry.graph;
  try {
    return predict_collective(g, c, request);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(m.source, "algorithm", in_quotes(algo), e.what());
  }
}

std::vector<ValidationRow> validate(const MeasurementSet& set, CasePredictor& predictor, const DdpPredictor& ddp,
                                    const std::string& workload) {
  std::vector<ValidationRow> rows;
  for (const auto& m : set.collectives) {
    ValidationRow r;
    r.source = m.source;
    r.kind = "collective";
    r.algorithm = predictor.algorithm_for(m);
    r.ranks = m.ranks;
    r.size = m.size;
    // A log does not say which algorithm ran; mark the one assumed for the prediction.
    r.case_name = fmt::format("{} {}{} n={} {}", to_string(m.op), r.algorithm, m.algorithm.empty() ? "(assumed)" : "",
                              m.ranks, to_string(m.size));
    r.measured = m.time;
    const CollectivePrediction p = predictor.predict_case(m);
    r.predicted = p.time;
    if (m.algorithm.empty()) {
      // The model's choice for a log that does not say what ran.
      r.algorithm = p.algorithm;
      r.case_name = fmt::format("{} {}/{}(chosen) n={} {}", to_string(m.op), p.algorithm, to_string(p.protocol), m.ranks,
                                to_string(m.size));
      if (const auto knobs = predictor.log_knobs_applied(m); !knobs.empty()) {
        r.note = fmt::format("as the log's run: {}", fmt::join(knobs, " "));
      }
    }
    rows.push_back(std::move(r));
  }
  for (const auto& m : set.ddp) {
    ValidationRow r;
    r.source = m.source;
    r.kind = "ddp";
    r.ranks = m.ranks;
    r.case_name = fmt::format("ddp {} n={} bucket={}MB", m.model, m.ranks, m.bucket_cap_mb);
    r.bucket_cap_mb = m.bucket_cap_mb;
    r.group = fmt::format("{} n={} {} on {}", m.model, m.ranks, m.backend, m.topology.empty() ? "--topology" : m.topology);
    r.measured = m.iteration;
    if (ddp) {
      const auto& cal = predictor.calibration();
      const double slowdown = cal && cal->ddp ? cal->ddp->comm_slowdown : 0.0;
      const DdpPredictionResult p = ddp(m, predictor.topology_for(m.source, m.topology, m.ranks), workload, slowdown);
      r.predicted = p.iteration;
      r.note = p.note;
    } else {
      r.note = "not predicted: this build has no DDP replay (sim/train)";
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace collsim
