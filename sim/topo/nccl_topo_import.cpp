#include "sim/topo/nccl_topo_import.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/version.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/server_generators.hpp"

namespace collsim {

namespace {

using OrderedJson = nlohmann::ordered_json;

// PCI device ids (PCI ID repository, vendor 0x10de) of catalogue models (gpu_catalogue.hpp);
// the SM alone cannot tell an A100 from an A30 or an H100 from an H200.
struct KnownDevice {
  int sm;
  unsigned device;
  std::string_view model;
};
constexpr std::array<KnownDevice, 19> kDevices{{
    {70, 0x1db1, "V100"}, {70, 0x1db4, "V100"}, {70, 0x1db5, "V100"},  // SXM2 16GB, PCIe 16GB, SXM2 32GB
    {70, 0x1db6, "V100"}, {70, 0x1df6, "V100"},                        // PCIe 32GB, V100S
    // SXM4 40GB, SXM4 80GB, PCIe 80GB (HBM2e at 1,935 GB/s, the SXM part's 2,039 in the
    // catalogue), PCIe 40GB (the 40 GB SXM part's 40 GiB at 1,555 GB/s: A100 datasheet), SXM 64GB.
    {80, 0x20b0, "A100-40GB"}, {80, 0x20b2, "A100"}, {80, 0x20b5, "A100"},
    {80, 0x20f1, "A100-40GB"}, {80, 0x20b3, "A100"},
    {90, 0x2330, "H100"}, {90, 0x2331, "H100"}, {90, 0x2339, "H100"},  // SXM5 80GB, PCIe, SXM5 94GB
    {90, 0x2321, "H100"}, {90, 0x2324, "H800"}, {90, 0x2322, "H100"},  // NVL 94GB, H800, H800 PCIe (no entry)
    {90, 0x2335, "H200"}, {90, 0x233b, "H200"},                        // SXM 141GB, NVL
    {100, 0x2901, "B200"},
}};

// The models kDevices can tell by PCI device id, in table order.
std::vector<std::string> pci_known_models() {
  std::vector<std::string> out;
  for (const KnownDevice& k : kDevices) {
    if (std::find(out.begin(), out.end(), k.model) == out.end()) out.emplace_back(k.model);
  }
  return out;
}

// NVLink version of an SM generation: Volta 2, Ampere 3, Hopper 4, Blackwell 5.
std::optional<int> nvlink_version(int sm) {
  if (sm >= 70 && sm < 80) return 2;
  if (sm >= 80 && sm < 90) return 3;
  if (sm >= 90 && sm < 100) return 4;
  if (sm >= 100 && sm < 110) return 5;
  return std::nullopt;
}

// Host CPUs by CPUID vendor, family and model (decimal, as NCCL writes them).
struct KnownCpu {
  std::string_view vendor;
  int family;
  int model;
  CpuPlatform platform;
};
constexpr std::array<KnownCpu, 5> kCpus{{
    {"GenuineIntel", 6, 79, CpuPlatform::XeonBroadwell},        // Broadwell-EP (E5-2698 v4)
    {"GenuineIntel", 6, 106, CpuPlatform::XeonIceLake},         // Ice Lake-SP
    {"GenuineIntel", 6, 143, CpuPlatform::XeonSapphireRapids},  // Sapphire Rapids (8480C)
    {"GenuineIntel", 6, 207, CpuPlatform::XeonEmeraldRapids},   // Emerald Rapids (8570)
    {"AuthenticAMD", 23, 49, CpuPlatform::Epyc7002},            // Rome (EPYC 7742)
}};

// NCCL's class of a <cpu> (topo.cc ncclTopoAddCpu): by "arch", then for x86 by vendor,
// family and model; nullopt where the dump does not say.
std::optional<HostCpu> nccl_cpu(const NcclCpu& c) {
  if (c.arch == "arm64") return HostCpu::Arm;
  if (c.arch == "ppc64") return HostCpu::Power;
  if (c.vendor.empty()) return std::nullopt;
  return nccl_x86_cpu(c.vendor, c.family, c.model);
}

std::string time_text(Time t) {
  return t.ps % Time::kPerNs == 0 ? fmt::format("{}ns", t.ps / Time::kPerNs) : fmt::format("{}ps", t.ps);
}

class HostBuilder {
 public:
  HostBuilder(const NcclSystem& s, const std::string& source, const NcclImportOptions& o)
      : s_(s), source_(source), options_(o) {}

  ImportedNcclHost build() {
    node("host", "host");
    for (std::size_t i = 0; i < s_.cpus.size(); ++i) {
      cpu_ids_.push_back(node(fmt::format("cpu{}", i), "cpu"));
      if (const auto p = nccl_cpu(s_.cpus[i])) nodes_.back()["platform"] = std::string(to_string(*p));
    }
    socket_links();
    std::vector<int> gpus, nics;
    for (std::size_t i = 0; i < s_.devices.size(); ++i) {
      const NcclDevice& d = s_.devices[i];
      if (d.kind == NcclDeviceKind::PcieSwitch) device_ids_[i] = node(fmt::format("pcie{}", switches_++), "pcie_switch");
      if (d.kind == NcclDeviceKind::Gpu) gpus.push_back(static_cast<int>(i));
      if (d.kind == NcclDeviceKind::Nic) nics.push_back(static_cast<int>(i));
    }
    if (gpus.empty()) throw ConfigError(source_, "<system>", "no <gpu>", "at least one GPU in the dump");
    sort_unique(gpus, [&](int i) { return s_.devices[i].dev; }, "gpu", "dev");
    sort_unique(nics, [&](int i) { return s_.devices[i].net_dev; }, "net", "dev");
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      const NcclDevice& d = s_.devices[gpus[g]];
      device_ids_[gpus[g]] = node(fmt::format("gpu{}", g), "gpu");
      nodes_.back()["model"] = model_of(d);
    }
    for (std::size_t n = 0; n < nics.size(); ++n) {
      device_ids_[nics[n]] = node(fmt::format("nic{}", n), "nic");
      if (const double us = s_.devices[nics[n]].net_latency_us; us > 0) nodes_.back()["net_latency"] = fmt::format("{:.3f}us", us);
      out_.nic_speeds.push_back(Bandwidth::bits_per_second(s_.devices[nics[n]].speed_mbps * 1e6));
    }
    for (std::size_t i = 0; i < s_.devices.size(); ++i) pcie_link(i);
    nvlinks(gpus);
    own_nics(gpus, nics);
    out_.nodes = std::move(nodes_);
    std::vector<std::string> speeds;  // the NICs' speeds, which a single host's links cannot carry
    for (Bandwidth b : out_.nic_speeds) {
      const std::string text = exact_bandwidth_text(b, true);
      if (std::find(speeds.begin(), speeds.end(), text) == speeds.end()) speeds.push_back(text);
    }
    out_.summary = fmt::format("{} x {} (SM {}), {} NIC port{}{}{}, {} PCIe switch{}, {} CPU socket{}", gpus.size(),
                               model_of(s_.devices[gpus.front()]), s_.devices[gpus.front()].sm, nics.size(),
                               nics.size() == 1 ? "" : "s", speeds.empty() ? "" : " at ", fmt::join(speeds, "/"),
                               switches_, switches_ == 1 ? "" : "es", s_.cpus.size(), s_.cpus.size() == 1 ? "" : "s");
    return std::move(out_);
  }

 private:
  const NcclSystem& s_;
  const std::string& source_;
  const NcclImportOptions& options_;
  ImportedNcclHost out_;
  OrderedJson nodes_ = OrderedJson::array();
  std::vector<std::string> cpu_ids_;
  std::map<std::size_t, std::string> device_ids_;  // device index -> node id
  std::map<std::string, std::size_t> node_at_;     // node id -> index in nodes_
  std::map<std::string, std::vector<std::string>> pcie_adjacent_;  // for the nearest NIC
  int switches_ = 0;
  std::string nvswitch_;

  [[noreturn]] void fail(int line, const std::string& what, const std::string& value, const std::string& expected) const {
    throw ConfigError(source_, fmt::format("line {}, {}", line, what), value, expected);
  }

  std::string node(std::string id, std::string_view kind) {
    OrderedJson n;
    n["id"] = id;
    n["kind"] = kind;
    if (kind != "host") n["host"] = "host";
    node_at_[id] = nodes_.size();
    nodes_.push_back(std::move(n));
    return id;
  }

  void link(const std::string& a, const std::string& b, std::string_view kind, Bandwidth lane, int lanes, Time latency) {
    OrderedJson l;
    l["endpoints"] = OrderedJson::array({a, b});
    l["kind"] = kind;
    l["bandwidth"] = exact_bandwidth_text(lane);
    if (lanes != 1) l["lanes"] = lanes;
    l["latency"] = time_text(latency);
    out_.links.push_back(std::move(l));
    if (kind == "pcie") {
      pcie_adjacent_[a].push_back(b);
      pcie_adjacent_[b].push_back(a);
    }
  }

  template <typename Key>
  void sort_unique(std::vector<int>& v, Key key, const char* element, const char* attr) const {
    std::stable_sort(v.begin(), v.end(), [&](int a, int b) { return key(a) < key(b); });
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (key(v[i]) == key(v[i - 1])) {
        fail(s_.devices[v[i]].line, fmt::format("<{}> attribute \"{}\"", element, attr), std::to_string(key(v[i])),
             fmt::format("a {} not used by another <{}> (first on line {})", attr, element, s_.devices[v[i - 1]].line));
      }
    }
  }

  std::string model_of(const NcclDevice& d) const {
    const auto where = fmt::format("<gpu> attribute \"sm\" (PCI device {})", d.pci_device.empty() ? "not given" : d.pci_device);
    if (options_.gpu_model) {
      const GpuSpec* m = find_gpu(*options_.gpu_model);
      if (m == nullptr) throw ConfigError("--gpu-model", "", in_quotes(*options_.gpu_model),
                                          fmt::format("one of: {}", fmt::join(gpu_names(), ", ")));
      const int sm = m->compute_capability.sm();
      if (sm / 10 != d.sm / 10) {
        fail(d.line, where, std::to_string(d.sm), fmt::format("an SM of the --gpu-model {} ({})", *options_.gpu_model, sm));
      }
      return std::string(m->name);
    }
    const unsigned device = static_cast<unsigned>(std::strtoul(d.pci_device.c_str(), nullptr, 16));
    for (const KnownDevice& k : kDevices) {
      if (k.sm == d.sm && k.device == device && !d.pci_device.empty()) return std::string(k.model);
    }
    fail(d.line, where, std::to_string(d.sm),
         fmt::format("a GPU collsim knows ({}) by SM and PCI device id; name the model with --gpu-model (one of: {})",
                     fmt::join(pci_known_models(), ", "), fmt::join(gpu_names(), ", ")));
  }

  // The sockets' DRAM bandwidth where collsim knows the CPU (an offloaded optimizer runs
  // there), and the links between sockets, which need a known CPU.
  void socket_links() {
    const bool linked = s_.cpus.size() >= 2;
    std::optional<CpuPlatform> platform;
    for (const NcclCpu& c : s_.cpus) {
      const auto it = std::find_if(kCpus.begin(), kCpus.end(), [&](const KnownCpu& k) {
        return k.vendor == c.vendor && k.family == c.family && k.model == c.model;
      });
      if (it == kCpus.end() && !linked) return;
      if (it == kCpus.end()) {
        std::vector<std::string> known;
        for (const KnownCpu& k : kCpus) known.push_back(fmt::format("{} {}/{} ({})", k.vendor, k.family, k.model, to_string(k.platform)));
        fail(c.line, "<cpu> attributes \"vendor\", \"familyid\", \"modelid\"",
             fmt::format("\"{}\" {}/{}", c.vendor, c.family, c.model),
             fmt::format("a CPU whose socket links collsim knows: {}", fmt::join(known, ", ")));
      }
      if (platform && *platform != it->platform) fail(c.line, "<cpu>", std::string(to_string(it->platform)), "the same CPU in every socket");
      platform = it->platform;
    }
    if (!platform) return;
    for (const std::string& id : cpu_ids_) {
      nodes_[node_at_.at(id)]["memory_bandwidth"] = exact_bandwidth_text(socket_memory_bandwidth(*platform));
    }
    if (!linked) return;
    const SocketLink sl = socket_link(*platform);
    const Time latency = ServerSpec{}.pcie_latency;
    for (std::size_t a = 0; a < cpu_ids_.size(); ++a) {
      for (std::size_t b = a + 1; b < cpu_ids_.size(); ++b) {
        link(cpu_ids_[a], cpu_ids_[b], "pcie", Bandwidth::gb_per_s(sl.gbps_per_link), sl.links, latency);
      }
    }
  }

  void pcie_link(std::size_t i) {
    const NcclDevice& d = s_.devices[i];
    const std::string& up = d.parent ? device_ids_.at(static_cast<std::size_t>(*d.parent)) : cpu_ids_[d.cpu];
    link(device_ids_.at(i), up, "pcie", pcie_lane_rate(d.link.generation), d.link.width, ServerSpec{}.pcie_latency);
  }

  void nvlinks(const std::vector<int>& gpus) {
    std::map<std::string, std::size_t> by_bus;  // to_lower-case bus id -> local GPU index
    for (std::size_t g = 0; g < gpus.size(); ++g) by_bus[to_lower(s_.devices[gpus[g]].busid)] = g;
    std::map<std::pair<std::size_t, std::size_t>, std::pair<int, int>> pairs;  // (a<b) -> (count, line)
    std::vector<int> to_switch(gpus.size(), 0);
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      const NcclDevice& d = s_.devices[gpus[g]];
      for (const NcclNvLink& l : d.nvlinks) {
        if (l.to_nvswitch) {
          to_switch[g] += l.count;
          continue;
        }
        const auto it = by_bus.find(to_lower(l.target));
        if (it == by_bus.end() || it->second == g) {
          fail(l.line, "<nvlink> attribute \"target\"", in_quotes(l.target), "the bus id of another GPU in the dump");
        }
        const auto key = std::make_pair(std::min(g, it->second), std::max(g, it->second));
        const auto [p, fresh] = pairs.emplace(key, std::make_pair(l.count, l.line));
        if (!fresh && p->second.first != l.count) {
          fail(l.line, "<nvlink> attribute \"count\"", std::to_string(l.count),
               fmt::format("{}, the count the other GPU gives on line {}", p->second.first, p->second.second));
        }
      }
    }
    const Time latency = ServerSpec{}.nvlink_latency;
    for (const auto& [key, count] : pairs) {
      const NcclDevice& d = s_.devices[gpus[key.first]];
      link(device_ids_.at(gpus[key.first]), device_ids_.at(gpus[key.second]), "nvlink", lane_rate(d), count.first, latency);
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      if (to_switch[g] == 0) continue;
      if (nvswitch_.empty()) nvswitch_ = node("nvswitch", "nvswitch");
      link(device_ids_.at(gpus[g]), nvswitch_, "nvswitch", lane_rate(s_.devices[gpus[g]]), to_switch[g], latency);
    }
  }

  Bandwidth lane_rate(const NcclDevice& d) const {
    const auto v = nvlink_version(d.sm);
    if (!v) fail(d.line, "<gpu> attribute \"sm\"", std::to_string(d.sm), "an SM with NVLink 2 to 5 (70 to 109) on a GPU with <nvlink>");
    return nvlink_lane_rate(*v);
  }

  // Each GPU's own NIC: the nearest by PCIe hops; among equals the one fewest GPUs chose
  // so far, then the lowest index (GPU i gets rail i when each switch holds as many
  // NICs as GPUs).
  void own_nics(const std::vector<int>& gpus, const std::vector<int>& nics) {
    if (nics.empty()) return;
    std::vector<int> chosen(nics.size(), 0);
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      const std::string& from = device_ids_.at(gpus[g]);
      std::map<std::string, int> hops{{from, 0}};
      std::deque<std::string> queue{from};
      while (!queue.empty()) {
        const std::string at = queue.front();
        queue.pop_front();
        for (const std::string& next : pcie_adjacent_[at]) {
          if (hops.emplace(next, hops[at] + 1).second) queue.push_back(next);
        }
      }
      std::size_t best = 0;
      for (std::size_t n = 1; n < nics.size(); ++n) {
        const int hn = hops.at(device_ids_.at(nics[n]));
        const int hb = hops.at(device_ids_.at(nics[best]));
        if (hn < hb || (hn == hb && chosen[n] < chosen[best])) best = n;
      }
      ++chosen[best];
      nodes_[node_at_.at(from)]["nic"] = device_ids_.at(nics[best]);
    }
  }
};

}  // namespace

std::string exact_bandwidth_text(Bandwidth b, bool in_bits) {
  const std::string gb = fmt::format("{}GB/s", b.bytes_per_s / 1e9);
  const std::string gbit = fmt::format("{}Gbps", b.bytes_per_s * 8.0 / 1e9);
  for (const std::string& text : in_bits ? std::array{gbit, gb} : std::array{gb, gbit}) {
    if (text.size() <= 12 && parse_bandwidth(text).bytes_per_s == b.bytes_per_s) return text;
  }
  return fmt::format("{}B/s", b.bytes_per_s);
}

ImportedNcclHost import_nccl_host(const NcclSystem& system, const std::string& source, const NcclImportOptions& options) {
  return HostBuilder(system, source, options).build();
}

nlohmann::ordered_json nccl_topology_json(const ImportedNcclHost& host, const std::string& name, const std::string& source,
                                          const std::optional<NcclClusterOptions>& cluster) {
  OrderedJson doc;
  doc["name"] = name;
  doc[kVersionKey] = version_string();
  if (!cluster) {
    doc["description"] = fmt::format("Imported from the NCCL topology dump {}: {}", source, host.summary);
    doc["nodes"] = host.nodes;
    doc["links"] = host.links;
    return doc;
  }
  OrderedJson fabric = cluster->fabric;
  if (!fabric.contains("nic_bandwidth")) {
    if (host.nic_speeds.empty()) throw ConfigError("--fabric", "nic_bandwidth", "", "a NIC in the dump, or nic_bandwidth=RATE");
    for (Bandwidth b : host.nic_speeds) {
      if (b != host.nic_speeds.front()) {
        throw ConfigError("--fabric", "nic_bandwidth", fmt::format("NICs of {} and {}", to_string(host.nic_speeds.front()), to_string(b)),
                          "one NIC speed in the dump, or nic_bandwidth=RATE");
      }
    }
    fabric["nic_bandwidth"] = exact_bandwidth_text(host.nic_speeds.front(), true);
  }
  doc["description"] = fmt::format("{} hosts imported from the NCCL topology dump {}: {}", cluster->hosts, source, host.summary);
  OrderedJson server;
  server["kind"] = "explicit";
  server["nodes"] = host.nodes;
  server["links"] = host.links;
  doc["generator"] = OrderedJson{{"kind", "cluster"}, {"hosts", cluster->hosts}, {"server", server}, {"fabric", fabric}};
  return doc;
}

}  // namespace collsim
