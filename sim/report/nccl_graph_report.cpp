#include "sim/report/nccl_graph_report.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

constexpr int kRingPattern = 4;  // NCCL_TOPO_PATTERN_RING

std::string path_name(const std::optional<PathType>& t) { return t ? std::string(to_string(*t)) : "-"; }

// One line per channel, NCCL's ncclTopoPrintGraph: NET/nic GPU/a ... GPU/z NET/nic.
std::string channel_line(const NcclGraph& g, int c) {
  const NcclChannel& ch = g.per_channel[static_cast<std::size_t>(c)];
  std::vector<std::string> parts;
  if (ch.nic >= 0) parts.push_back(fmt::format("NET/{}", ch.nic));
  for (int gpu : ch.order) parts.push_back(fmt::format("GPU/{}", gpu));
  if (ch.nic >= 0) parts.push_back(fmt::format("NET/{}", ch.exit_nic));
  std::string line = fmt::format("  {:02} : {}", c, fmt::join(parts, " "));
  if (ch.nic >= 0 && ch.exit_path == PathType::Pxn) line += fmt::format("  (exit PXN via GPU/{})", ch.proxy);
  return line;
}

using CellMatrix = std::vector<std::vector<std::string>>;

CellMatrix path_cells(const PathMatrix& m) {
  CellMatrix out;
  for (const auto& row : m) {
    out.emplace_back();
    for (const auto& t : row) out.back().push_back(path_name(t));
  }
  return out;
}

// `yes` / `no` per pair of `m` (the diagonal of a square one "-"), and how many are `no`.
std::pair<CellMatrix, int> flag_cells(const std::vector<std::vector<bool>>& m, const char* yes, const char* no,
                                      bool square) {
  CellMatrix out;
  int count = 0;
  for (std::size_t a = 0; a < m.size(); ++a) {
    out.emplace_back();
    for (std::size_t b = 0; b < m[a].size(); ++b) {
      count += m[a][b] ? 1 : 0;
      out.back().push_back(square && a == b ? "-" : m[a][b] ? no : yes);
    }
  }
  return {out, count};
}

void write_matrix(std::ostream& out, const char* row_label, const char* col_label, const CellMatrix& m,
                  std::size_t cols) {
  // Columns 6 wide, like nvidia-smi topo -m; no trailing blanks.
  auto print_row = [&out](std::string label, const std::vector<std::string>& cells) {
    std::string line = fmt::format("{:<6}", label);
    for (const auto& c : cells) line += fmt::format(" {:<5}", c);
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  };
  std::vector<std::string> header;
  for (std::size_t b = 0; b < cols; ++b) header.push_back(fmt::format("{}{}", col_label, b));
  print_row("", header);
  for (std::size_t a = 0; a < m.size(); ++a) print_row(fmt::format("{}{}", row_label, a), m[a]);
}

// Which GPU pairs use P2P or SHM, which GPU-NIC pairs GPUDirect RDMA or host memory.
void write_transports(std::ostream& out, const NcclGraphSummary& s) {
  const NcclGraph& g = *s.graph;
  const NcclHost& h0 = g.host.front();
  fmt::print(out, "\nTransports (P2P up to {}: NCCL_P2P_LEVEL; GPU Direct RDMA up to {}: NCCL_NET_GDR_LEVEL; "
                  "GPUs, drivers and net transports without them use host memory)\n",
             to_string(g.p2p_level), to_string(g.transports.gdr()));
  const auto [gpu_cells, shm] = flag_cells(g.shm, "P2P", "SHM", true);
  const std::size_t pairs = h0.gpus.size() * (h0.gpus.size() - 1);
  if (shm == 0) {
    fmt::print(out, "GPU to GPU: P2P between all {} ordered pairs\n", pairs);
  } else {
    fmt::print(out, "GPU to GPU: SHM (through the receiving GPU's CPU) for {} of {} ordered pairs\n", shm, pairs);
    write_matrix(out, "GPU", "GPU", gpu_cells, h0.gpus.size());
  }
  if (h0.nics.empty()) return;
  std::vector<std::string> host_only;
  for (std::size_t k = 0; k < s.nic_gpu_direct.size(); ++k) {
    if (!s.nic_gpu_direct[k]) host_only.push_back(fmt::format("NIC{}", k));
  }
  if (!host_only.empty()) {
    fmt::print(out, "Net transport without GPU Direct RDMA (host memory only: NCCL's socket transport on Ethernet, "
                    "or as net_latency names it): {}\n",
               fmt::join(host_only, " "));
  }
  const auto [nic_cells, staged] = flag_cells(g.staged, "GDR", "HOST", false);
  const std::size_t links = h0.gpus.size() * h0.nics.size();
  if (staged == 0) {
    fmt::print(out, "GPU to NIC: GPU Direct RDMA for all {} pairs\n", links);
  } else {
    fmt::print(out, "GPU to NIC: staged in host memory (the GPU's CPU) for {} of {} pairs\n", staged, links);
    write_matrix(out, "GPU", "NIC", nic_cells, h0.nics.size());
  }
}

std::string cap_text(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "none"; }

void write_tuning(std::ostream& out, const NcclGraphSummary& s) {
  fmt::print(out, "Tuning: {} of {} B on {} ranks ({}, as collective_cost applies it)\n", to_string(s.tuned.op),
             s.tuned.size.count, s.tuned.ranks, s.model);
  out << "# channels: channels at this size; base: latency paid once per collective (NCCL baseLat, us)\n"
         "# nvlink/pci/net: latency of one step whose route's slowest link is of that class (NCCL hwLat, us)\n"
         "# eff: payload bytes per wire byte; chan cap: per-channel flow cap (wire GB/s)\n"
         "# busbw cap: channels (nvls: 2 x (ranks - 1) GPU-pair legs) x chan cap x eff (payload GB/s); none: no channel "
         "cap, links alone limit\n";
  // The algorithm column as wide as its longest name (collnet_direct), 9 at least.
  std::size_t w = 9;
  for (const NcclTuningRow& r : s.tuning) w = std::max(w, r.algorithm.size());
  fmt::print(out, "{:<{}} {:<8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>6} {:>9} {:>10}\n", "algorithm", w, "protocol",
             "channels", "base", "nvlink", "pci", "net", "eff", "chan cap", "busbw cap");
  std::vector<std::string> notes;
  for (const NcclTuningRow& r : s.tuning) {
    if (r.unusable) {
      auto it = std::find(notes.begin(), notes.end(), *r.unusable);
      if (it == notes.end()) it = notes.insert(notes.end(), *r.unusable);
      fmt::print(out, "{:<{}} {:<8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>6} {:>9} {:>10}  [{}]\n", r.algorithm, w,
                 to_string(r.protocol), "-", "-", "-", "-", "-", "-", "-", "-", it - notes.begin() + 1);
      continue;
    }
    fmt::print(out, "{:<{}} {:<8} {:>8} {:>8.2f} {:>7.2f} {:>7.2f} {:>7.2f} {:>6.3f} {:>9} {:>10}\n", r.algorithm, w,
               to_string(r.protocol), r.channels, r.base_latency.us(), r.step_latency[0].us(), r.step_latency[1].us(),
               r.step_latency[2].us(), r.efficiency, cap_text(r.channel_cap_gbps), cap_text(r.busbw_cap_gbps()));
  }
  for (std::size_t i = 0; i < notes.size(); ++i) fmt::print(out, "# [{}] {}\n", i + 1, notes[i]);
  for (const auto& o : s.omitted) fmt::print(out, "# {} not listed: {}\n", o.algorithm, o.reason);
}

void write_text(std::ostream& out, const NcclGraphSummary& s) {
  if (s.not_applicable) {
    fmt::print(out, "{}: NCCL's channel graph does not apply: {}\n", s.topology, *s.not_applicable);
    return;
  }
  const NcclGraph& g = *s.graph;
  const NcclHost& h0 = g.host.front();
  fmt::print(out, "# collsim topo nccl: {} ({})\n", s.topology, s.source);
  out << "# what NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH,TUNING would report, as collsim models it\n";
  fmt::print(out, "ranks {}, hosts {} ({} GPUs each), GPU generation {}, NICs per host {}, host CPU {}\n\n", s.ranks,
             g.hosts, h0.gpus.size(), to_string(g.arch), h0.nics.size(),
             g.host_cpu ? to_string(*g.host_cpu) : std::string_view("not named"));

  out << "Paths inside host 0 (NCCL path types: LOC itself, NVL NVLink/NVSwitch, PIX one PCIe switch,\n"
         "PXB several PCIe switches, PHB through a CPU, SYS across CPUs, - no route)\n";
  write_matrix(out, "GPU", "GPU", path_cells(s.gpu_gpu), h0.gpus.size());
  if (!h0.nics.empty()) {
    out << "\n";
    write_matrix(out, "GPU", "NIC", path_cells(s.gpu_nic), h0.nics.size());
  }
  write_transports(out, s);

  fmt::print(out, "\nRing graph (local GPU and NIC indices; every host alike)\n");
  fmt::print(out, "Pattern {} ({}), crossNic {}, nChannels {}, bw {:.6f}/{:.6f}, type {}/{}, sameChannels 1\n",
             kRingPattern, g.pattern, g.cross_nic ? 1 : 0, g.channels, g.speed_gbps, g.speed_gbps, to_string(g.type_intra),
             to_string(g.type_inter));
  for (int c = 0; c < g.channels; ++c) out << channel_line(g, c) << "\n";
  fmt::print(out, "# searched {} channel{} at {:g} GB/s each; ", g.searched_channels,
             g.searched_channels == 1 ? "" : "s", g.searched_speed_gbps);
  if (g.duplicated) {
    fmt::print(out, "duplicated to {} channels at {:g} GB/s (ncclTopoDupChannels)\n\n", g.channels, g.speed_gbps);
  } else {
    out << "not duplicated\n\n";
  }
  if (g.hosts > 1) {
    // Trees reuse the ring's channels as chains; the search's second pass for trees
    // raises bwIntra (what NCCL prints on the tree graph's "Pattern" line).
    fmt::print(out, "Tree graph: the ring's channels as chains, nChannels {}, bw {:.6f}/{:.6f}\n", g.channels,
               g.tree_speed_gbps, g.speed_gbps);
    fmt::print(out, "# bwIntra raised by the search's second pass for trees (below 2 x bwInter, while the chains "
                    "fit); trees on 2 hosts are priced at bwIntra, on more at bwInter\n\n");
  }
  write_tuning(out, s);
}

Json path_rows(const PathMatrix& m) {
  Json rows = Json::array();
  for (const auto& row : m) {
    Json r = Json::array();
    for (const auto& t : row) r.push_back(t ? Json(std::string(to_string(*t))) : Json(nullptr));
    rows.push_back(std::move(r));
  }
  return rows;
}

Json ring_json(const NcclGraph& g) {
  Json j;
  j["pattern"] = kRingPattern;
  j["pattern_name"] = g.pattern;
  j["cross_nic"] = g.cross_nic ? 1 : 0;
  j["channels"] = g.channels;
  j["bw_intra_gbps"] = g.speed_gbps;
  j["bw_inter_gbps"] = g.speed_gbps;
  j["type_intra"] = to_string(g.type_intra);
  j["type_inter"] = to_string(g.type_inter);
  j["same_channels"] = 1;
  j["searched_channels"] = g.searched_channels;
  j["searched_speed_gbps"] = g.searched_speed_gbps;
  j["duplicated"] = g.duplicated;
  if (g.hosts > 1) j["tree_bw_intra_gbps"] = g.tree_speed_gbps;
  j["per_channel"] = Json::array();
  for (int c = 0; c < g.channels; ++c) {
    const NcclChannel& ch = g.per_channel[static_cast<std::size_t>(c)];
    Json x;
    x["channel"] = c;
    x["nic"] = ch.nic >= 0 ? Json(ch.nic) : Json(nullptr);
    x["exit_nic"] = ch.nic >= 0 ? Json(ch.exit_nic) : Json(nullptr);
    x["gpus"] = ch.order;
    x["exit_path"] = ch.nic >= 0 ? Json(std::string(to_string(ch.exit_path))) : Json(nullptr);
    x["proxy_gpu"] = ch.proxy >= 0 ? Json(ch.proxy) : Json(nullptr);
    j["per_channel"].push_back(std::move(x));
  }
  return j;
}

Json tuning_json(const NcclGraphSummary& s) {
  Json j;
  j["collective"] = to_string(s.tuned.op);
  j["size_bytes"] = s.tuned.size.count;
  j["ranks"] = s.tuned.ranks;
  j["model"] = s.model;
  j["rows"] = Json::array();
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  for (const NcclTuningRow& r : s.tuning) {
    Json x;
    x["algorithm"] = r.algorithm;
    x["protocol"] = to_string(r.protocol);
    x["usable"] = !r.unusable;
    if (r.unusable) {
      x["unusable"] = *r.unusable;
    } else {
      x["channels"] = r.channels;
      x["base_latency_us"] = r.base_latency.us();
      Json steps;
      for (std::size_t k = 0; k < kLinkClasses; ++k) {
        steps[std::string(to_string(static_cast<LinkClass>(k)))] = r.step_latency[k].us();
      }
      x["step_latency_us"] = std::move(steps);
      x["efficiency"] = r.efficiency;
      x["channel_cap_gbps"] = opt(r.channel_cap_gbps);
      x["busbw_cap_gbps"] = opt(r.busbw_cap_gbps());
    }
    j["rows"].push_back(std::move(x));
  }
  j["omitted"] = Json::array();
  for (const auto& o : s.omitted) j["omitted"].push_back(Json{{"algorithm", o.algorithm}, {"reason", o.reason}});
  return j;
}

Json graph_summary_json(const NcclGraphSummary& s) {
  Json doc = report_document(
      {{"topology", s.topology}, {"source", s.source}, {"ranks", s.ranks}, {"applies", !s.not_applicable}});
  if (s.not_applicable) {
    doc["reason"] = *s.not_applicable;
    return doc;
  }
  const NcclGraph& g = *s.graph;
  const NcclHost& h0 = g.host.front();
  doc["hosts"] = g.hosts;
  doc["gpus_per_host"] = h0.gpus.size();
  doc["arch"] = to_string(g.arch);
  doc["nics_per_host"] = h0.nics.size();
  doc["paths"] = Json{{"host", 0}, {"gpu_gpu", path_rows(s.gpu_gpu)}, {"gpu_nic", path_rows(s.gpu_nic)}};
  doc["host_cpu"] = g.host_cpu ? Json(std::string(to_string(*g.host_cpu))) : Json(nullptr);
  Json transports{{"p2p_level", to_string(g.p2p_level)}, {"gdr_level", to_string(g.transports.gdr())}};
  transports["shm_pairs"] = Json::array();
  for (std::size_t a = 0; a < g.shm.size(); ++a) {
    for (std::size_t b = 0; b < g.shm[a].size(); ++b) {
      if (g.shm[a][b]) transports["shm_pairs"].push_back(Json::array({a, b}));
    }
  }
  transports["staged_gpu_nic"] = Json::array();
  for (std::size_t a = 0; a < g.staged.size(); ++a) {
    for (std::size_t k = 0; k < g.staged[a].size(); ++k) {
      if (g.staged[a][k]) transports["staged_gpu_nic"].push_back(Json::array({a, k}));
    }
  }
  transports["nic_gpu_direct"] = s.nic_gpu_direct;
  doc["transports"] = std::move(transports);
  doc["ring"] = ring_json(g);
  doc["tuning"] = tuning_json(s);
  return doc;
}

}  // namespace

ReportViews nccl_graph_report_views(const NcclGraphSummary& summary) {
  return views_of(summary, write_text, graph_summary_json);
}

}  // namespace collsim
