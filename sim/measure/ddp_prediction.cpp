#include "sim/measure/ddp_prediction.hpp"

#include <fmt/format.h>

#include "sim/coll/collective_cost.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_graph.hpp"
#include "sim/train/ddp_names.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/workload_path.hpp"

namespace collsim {

namespace {

std::string join_sizes(const std::vector<std::int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

// The compute device: a catalogue GPU when the workload was measured on one (or, for a
// FLOPs workload, the topology's GPU); otherwise the measuring host, whose memory-bound
// kernels (bucket copies) run at the copy bandwidth the record measured.
std::optional<DeviceSpec> device_for(const DdpMeasurement& m, const Workload& w, const Topology& t, std::string& why) {
  if (auto d = find_device(w.measured_on)) return d;
  if (w.measured_on.empty() && !t.ranks.empty()) {
    if (auto d = find_device(t.nodes[t.ranks.front()].model)) return d;
    why = "not predicted: the workload gives FLOPs, and neither it nor the topology names a catalogue GPU";
    return std::nullopt;
  }
  if (m.memory_bandwidth_gbps <= 0) {
    why = fmt::format("not predicted: the workload was measured on \"{}\" but the record has no memory_bandwidth_gbps "
                      "(bucket copies need it; measure_ddp.py records it)",
                      w.measured_on);
    return std::nullopt;
  }
  DeviceSpec d;
  d.name = fmt::format("{} (measured copy bandwidth {:g} GB/s)", w.measured_on, m.memory_bandwidth_gbps);
  d.hbm_bandwidth = Bandwidth{m.memory_bandwidth_gbps * 1e9};
  d.citation = m.source;
  return d;
}

}  // namespace

std::vector<Time> measured_bucket_launches(const DdpMeasurement& m) {
  const auto it = m.record.find("bucket_allreduce");
  if (it == m.record.end() || !it->is_array()) return {};
  std::vector<Time> out(it->size());
  std::vector<bool> seen(it->size(), false);
  for (const auto& b : *it) {
    const auto idx = b.find("bucket");
    const auto start = b.find("start_us");
    if (idx == b.end() || start == b.end() || !idx->is_number_integer() || !start->is_number()) return {};
    const auto i = idx->get<std::int64_t>();
    const double us = start->get<double>();
    if (i < 0 || i >= static_cast<std::int64_t>(out.size()) || seen[static_cast<std::size_t>(i)] || !(us >= 0)) return {};
    out[static_cast<std::size_t>(i)] = Time::from_seconds(us * 1e-6);
    seen[static_cast<std::size_t>(i)] = true;
  }
  return out;
}

DdpPredictionResult predict_ddp_measurement(const DdpMeasurement& m, const Topology& topology, const std::string& workload_path,
                                            const std::string& algorithm, double comm_slowdown) {
  return predict_ddp_measurement(m, topology, workload_path, CommSpec{algorithm, "ideal"}, comm_slowdown);
}

DdpPredictionResult predict_ddp_measurement(const DdpMeasurement& m, const Topology& topology, const std::string& workload_path,
                                            const CommSpec& comm, double comm_slowdown) {
  DdpPredictionResult out;
  Workload w;
  if (const auto it = m.record.find("workload"); it != m.record.end()) {
    w = parse_workload(*it, m.source + " /workload");
  } else if (!workload_path.empty()) {
    w = load_workload_file(resolve_workload_path(workload_path));
  } else {
    out.note = "not predicted: the record embeds no workload and no --workload was given";
    return out;
  }
  const auto device = device_for(m, w, topology, out.note);
  if (!device) return out;
  ComputeModel cm = make_compute_model(w, *device);
  DdpOptions o;
  o.buckets.bucket_cap = bucket_cap_from_mb(m.bucket_cap_mb);
  o.backend = enum_from<DdpBackend>(m.backend).value_or(DdpBackend::Gloo);  // the record's, checked when read
  o.first_iteration = false;  // timed iterations follow the warm-up: rebuilt buckets
  o.compute_slowdown = comm_slowdown;
  LinkGraph graph(topology);
  CollectiveCostCache cache(graph, resolve_comm_spec(comm, topology, o.backend == DdpBackend::Nccl));
  const DdpResult r = simulate_ddp(w, cm, [&](CollectiveOp op, Bytes b) { return cache.time(op, b); }, o);
  out.iteration = r.iteration;
  out.buckets = static_cast<int>(r.plan.buckets.size());
  for (const BucketTiming& b : r.buckets) out.bucket_launches.push_back(b.launched);
  // DDP reports its rebuilt layout; a different predicted layout explains part of an error.
  if (const auto it = m.record.find("rebuilt_buckets"); it != m.record.end() && it->is_array() && !it->empty()) {
    std::vector<std::int64_t> measured, predicted;
    for (const auto& v : *it) measured.push_back(v.is_number_integer() ? v.get<std::int64_t>() : -1);
    for (const auto& b : r.plan.buckets) predicted.push_back(b.bytes.count);
    if (measured != predicted) {
      out.note = fmt::format("predicted buckets {} B differ from measured {} B", join_sizes(predicted), join_sizes(measured));
    }
  }
  return out;
}

}  // namespace collsim
