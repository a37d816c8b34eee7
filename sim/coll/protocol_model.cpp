#include "sim/coll/protocol_model.hpp"

#include "sim/coll/protocol_calibration.hpp"

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"

namespace collsim {

namespace {

Time us_to_s(double v) { return Time::from_seconds(v * 1e-6); }

PerProtocol<Time> lat(double ll, double ll128, double simple) { return {us_to_s(ll), us_to_s(ll128), us_to_s(simple)}; }

}  // namespace

ProtocolModel nccl_default_model() {
  ProtocolModel m;
  const auto tree = static_cast<std::size_t>(NcclRow::Tree);
  const auto ring = static_cast<std::size_t>(NcclRow::Ring);
  const auto collnet = static_cast<std::size_t>(NcclRow::CollNet);
  const auto nvls = static_cast<std::size_t>(NcclRow::Nvls);
  const auto pat = static_cast<std::size_t>(NcclRow::Pat);
  const auto nvls_tree = static_cast<std::size_t>(NcclRow::NvlsTree);
  const auto chain = static_cast<std::size_t>(NcclRow::CollNetChain);
  // baseLat (tuning.cc): Tree 6.8/14/8.4, Ring 6.6/14/8.4 us; CollNetDirect, CollNetChain,
  // NVLS and NVLSTree 0, PAT 8 (it runs Simple only).
  m.base_latency[tree] = lat(6.8, 14.0, 8.4);
  m.base_latency[ring] = lat(6.6, 14.0, 8.4);
  m.base_latency[collnet] = lat(0, 0, 0);
  m.base_latency[nvls] = lat(0, 0, 0);
  m.base_latency[pat] = lat(8.0, 8.0, 8.0);
  m.base_latency[nvls_tree] = lat(0, 0, 0);
  m.base_latency[chain] = lat(0, 0, 0);
  // hwLat [class][algorithm][protocol] (tuning.cc); CollNet = CollNetDirect's row.
  // CollNetChain: 2.8 us over NVLink and PCIe, 30 us over the network.
  auto& nv = m.step_latency[static_cast<std::size_t>(LinkClass::NvLink)];
  nv[tree] = lat(0.6, 1.25, 4.0);
  nv[ring] = lat(0.6, 1.9, 3.4);
  nv[collnet] = lat(0, 0, 3.7);
  nv[nvls] = lat(0, 0, 25);
  nv[pat] = lat(0, 0, 4.0);
  nv[nvls_tree] = lat(0, 0, 25);
  nv[chain] = lat(0, 0, 2.8);
  auto& pci = m.step_latency[static_cast<std::size_t>(LinkClass::Pci)];
  pci[tree] = lat(1.0, 1.9, 4.0);
  pci[ring] = lat(1.0, 2.5, 5.7);
  pci[collnet] = lat(0, 0, 3.7);
  pci[nvls] = lat(0, 0, 0);
  pci[pat] = lat(0, 0, 4.0);
  pci[nvls_tree] = lat(0, 0, 0);
  pci[chain] = lat(0, 0, 2.8);
  auto& net = m.step_latency[static_cast<std::size_t>(LinkClass::Net)];
  net[tree] = lat(5.0, 8.5, 14);
  net[ring] = lat(2.7, 4.0, 14.0);
  net[collnet] = lat(0, 0, 31);
  net[nvls] = lat(0, 0, 18);
  net[pat] = lat(0, 0, 14);
  net[nvls_tree] = lat(0, 0, 20.9);
  net[chain] = lat(0, 0, 30);
  // Ring: LL 0.5 (half of each 16 B line is flags), LL128 0.92 ("120/128"), Simple 1.
  m.efficiency = {0.5, 0.92, 1.0};
  // Tree all-reduce: x 0.92 always; LL x 1/3.8; LL128 x 7/9 (one node) or 120/128.
  m.tree_efficiency = 0.92;
  m.tree_ll_factor = 1.0 / 3.8;
  m.tree_ll128_one_node = 7.0 / 9.0;
  m.tree_ll128_multi_node = 120.0 / 128.0;
  // One pipeline step's payload: LL 512 KiB buffer / 8 steps, half of it data; LL128
  // 4,915,200 B / 8 steps x 120/128; Simple NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8.
  m.slice = {Bytes{32 * 1024}, Bytes{576'000}, Bytes{512 * 1024}};
  // Channel-count thresholds (enqueue.cc): nThreads LL 512, LL128 640, Simple 512; bytes
  // per thread LL 8 (x nRanks for Ring), LL128 8, Simple 64.
  m.threads = {512, 640, 512};
  m.bytes_per_thread = {8, 8, 64};
  // Per-architecture caps, GB/s, columns 1 / 2 / >= 3 nodes (tuning.cc).
  m.ll_max_bw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  m.ring_ll128_per_channel = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}};
  m.tree_ll128_per_channel = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
  m.tree_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
  m.nvls_tree_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
  m.nvls_efficiency = {0, 0, 0.85, 0.74};
  m.nvls_channels = {0, 0, 16, 24};  // nvls.cc: 16 on SM90, 24 on one SM100 node
  // A CUDA kernel launch costs a few us of CPU time in the driver (NVIDIA, "Getting Started
  // with CUDA Graphs", 2019: launch-bound back-to-back kernels on a V100 ran at ~3-4 us per
  // kernel), and NCCL's host-side enqueue (argument checks, work planning, the device
  // switch of a multi-GPU thread) adds about 1-2 us: 5 us per GPU per operation.
  m.launch_overhead = us_to_s(5.0);
  return m;
}

namespace {

constexpr std::array<std::string_view, kNcclProtocols> kProtoKeys{"ll", "ll128", "simple"};
constexpr std::array<std::string_view, kNcclRows> kRowKeys{"tree", "ring", "collnet", "nvls", "pat", "nvls_tree", "collnet_chain"};
constexpr std::array<std::string_view, kLinkClasses> kClassKeys{"nvlink", "pci", "net"};

template <typename T, typename Read>
void read_per_protocol(JsonFields& parent, std::string_view key, PerProtocol<T>& out, Read read) {
  const nlohmann::json* v = parent.optional(key);
  if (!v) return;
  JsonFields f(*v, parent.source(), parent.pointer(key));
  for (std::size_t p = 0; p < kNcclProtocols; ++p) {
    if (f.has(kProtoKeys[p])) out[p] = read(f, kProtoKeys[p]);
  }
  f.finish();
}

void read_rows(JsonFields& parent, std::string_view key, std::array<PerProtocol<Time>, kNcclRows>& rows) {
  const nlohmann::json* v = parent.optional(key);
  if (!v) return;
  JsonFields f(*v, parent.source(), parent.pointer(key));
  for (std::size_t r = 0; r < kNcclRows; ++r) {
    read_per_protocol<Time>(f, kRowKeys[r], rows[r], [](JsonFields& g, std::string_view k) { return g.time(k, kMaxLatency); });
  }
  f.finish();
}

}  // namespace

bool read_protocol_calibration(JsonFields& f, ProtocolModel& m) {
  bool any = false;
  for (const char* k : {"base_latency", "step_latency", "efficiency", "tree_efficiency", "slice", "channels", "channel_bandwidth",
                        "ll_max_bandwidth", "launch_overhead"}) {
    any = any || f.has(k);
  }
  read_rows(f, "base_latency", m.base_latency);
  if (const nlohmann::json* v = f.optional("step_latency")) {
    JsonFields g(*v, f.source(), f.pointer("step_latency"));
    for (std::size_t c = 0; c < kLinkClasses; ++c) read_rows(g, kClassKeys[c], m.step_latency[c]);
    g.finish();
  }
  read_per_protocol<double>(f, "efficiency", m.efficiency,
                            [](JsonFields& g, std::string_view k) { return g.number(k, 1e-3, 1.0); });
  if (auto v = f.optional_number("tree_efficiency", 1e-3, 1.0)) m.tree_efficiency = *v;
  read_per_protocol<Bytes>(f, "slice", m.slice, [](JsonFields& g, std::string_view k) {
    const Bytes b = g.size(k);
    if (b.count < 1) g.fail(k, std::to_string(b.count), "a slice of at least 1 B");
    return b;
  });
  if (auto v = f.optional_integer("channels", 1, 64)) m.channels = static_cast<int>(*v);
  if (auto v = f.optional_bandwidth("channel_bandwidth")) m.channel_bandwidth = *v;
  if (auto v = f.optional_bandwidth("ll_max_bandwidth")) m.ll_max_bandwidth = *v;
  if (f.has("launch_overhead")) m.launch_overhead = f.time("launch_overhead", kMaxLatency);
  return any;
}

std::string calibration_time_text(Time t) { return fmt::format("{}ns", (t.ps + Time::kPerNs / 2) / Time::kPerNs); }

namespace {

// {"ring": {"ll": "2700ns", ...}, ...} for the entries of `rows` that differ from `base`.
nlohmann::ordered_json row_diff(const std::array<PerProtocol<Time>, kNcclRows>& rows,
                                const std::array<PerProtocol<Time>, kNcclRows>& base) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t r = 0; r < kNcclRows; ++r) {
    for (std::size_t p = 0; p < kNcclProtocols; ++p) {
      if (rows[r][p] == base[r][p]) continue;
      out[std::string(kRowKeys[r])][std::string(kProtoKeys[p])] = calibration_time_text(rows[r][p]);
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json protocol_calibration_json(const ProtocolModel& m, const ProtocolModel& base) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (auto d = row_diff(m.base_latency, base.base_latency); !d.empty()) out["base_latency"] = d;
  nlohmann::ordered_json step = nlohmann::ordered_json::object();
  for (std::size_t c = 0; c < kLinkClasses; ++c) {
    if (auto d = row_diff(m.step_latency[c], base.step_latency[c]); !d.empty()) step[std::string(kClassKeys[c])] = d;
  }
  if (!step.empty()) out["step_latency"] = step;
  for (std::size_t p = 0; p < kNcclProtocols; ++p) {
    if (m.efficiency[p] != base.efficiency[p]) out["efficiency"][std::string(kProtoKeys[p])] = m.efficiency[p];
  }
  return out;
}

ProtocolModel load_calibration(const std::string& path, ProtocolModel m) {
  const nlohmann::json doc = read_json_file(path);
  JsonFields f(doc, path, "");
  m.source = path;
  (void)read_protocol_calibration(f, m);
  f.finish();
  return m;
}

}  // namespace collsim
