#include "sim/topo/generator_json.hpp"

#include <functional>

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/cluster_generator.hpp"
#include "sim/topo/explicit_json.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/link_overhead.hpp"
#include "sim/topo/net_transport.hpp"

namespace collsim {

namespace {

using JsonValue = nlohmann::json;

// Reads one JSON object field by field, recording errors instead of throwing.
class Reader {
 public:
  Reader(const JsonValue& obj, const std::string& source, std::string pointer, Diagnostics& diags)
      : obj_(obj), source_(source), pointer_(std::move(pointer)), diags_(diags) {
    ok_ = attempt(diags_, [&] { fields_.emplace(obj_, source_, pointer_); });
  }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] bool has(std::string_view k) const { return ok_ && fields_->has(k); }
  [[nodiscard]] JsonFields& fields() { return *fields_; }
  [[nodiscard]] std::string pointer(std::string_view k) const { return pointer_ + "/" + pointer_token(k); }
  [[nodiscard]] const std::string& base() const { return pointer_; }
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] Diagnostics& diags() { return diags_; }

  template <typename F>
  auto get(F&& f) {
    using R = std::invoke_result_t<F, JsonFields&>;
    if (!ok_) return std::optional<R>();
    auto r = attempt(diags_, [&] { return f(*fields_); });
    if (!r) failed_ = true;
    return r;
  }
  void fail(std::string_view key, const std::string& value, const std::string& expected) {
    diags_.emplace_back(source_, pointer(key), value, expected);
    failed_ = true;
  }
  // Unknown keys; true when nothing failed in this object.
  bool finish(const std::vector<std::string>& allowed) {
    if (!ok_) return false;
    const std::size_t before = diags_.size();
    check_keys(obj_, allowed, source_, pointer_, diags_);
    return !failed_ && diags_.size() == before;
  }

 private:
  const JsonValue& obj_;
  const std::string& source_;
  std::string pointer_;
  Diagnostics& diags_;
  std::optional<JsonFields> fields_;
  bool ok_ = false;
  bool failed_ = false;
};


std::optional<ServerSpec> read_server(Reader& r, ServerKind kind) {
  ServerSpec s;
  s.kind = kind;
  std::vector<std::string> allowed{"kind", "nics", "nvlink_latency", "pcie_latency"};
  if (auto n = r.get([](JsonFields& f) { return f.optional_integer("nics", 0, 64); }); n && *n) s.nics = static_cast<int>(**n);
  if (auto v = r.get([](JsonFields& f) { return f.optional_time("nvlink_latency", kMaxLatency); }); v && *v) s.nvlink_latency = **v;
  if (auto v = r.get([](JsonFields& f) { return f.optional_time("pcie_latency", kMaxLatency); }); v && *v) s.pcie_latency = **v;
  if (kind == ServerKind::Pcie8Gpu || kind == ServerKind::CpuHost) {
    allowed.emplace_back("pcie_gen");
    if (auto g = r.get([](JsonFields& f) { return f.optional_integer("pcie_gen", 3, 5); }); g && *g) {
      s.pcie_gen = static_cast<int>(**g);
    }
  }
  if (kind == ServerKind::Pcie8Gpu || kind == ServerKind::DgxA100) {
    // A DGX A100 came with either A100 SXM4: 40 GB (DGX A100 320GB, p4d) or 80 GB.
    const std::vector<std::string> models =
        kind == ServerKind::DgxA100 ? std::vector<std::string>{"A100", "A100-40GB"} : gpu_names();
    allowed.emplace_back("gpu_model");
    if (auto m = r.get([](JsonFields& f) { return f.optional_string("gpu_model"); }); m && *m) {
      const GpuSpec* gpu = find_gpu(**m);
      if (gpu != nullptr && std::find(models.begin(), models.end(), gpu->name) != models.end()) {
        s.gpu_model = gpu->name;
      } else {
        r.fail("gpu_model", in_quotes(**m),
               fmt::format("a GPU model{}, one of: {}", kind == ServerKind::DgxA100 ? " of a DGX A100" : "",
                           fmt::join(models, ", ")));
      }
    }
  }
  if (kind != ServerKind::CpuHost) {
    allowed.emplace_back("cpu");
    if (auto c = r.get([](JsonFields& f) { return f.optional_string("cpu"); }); c && *c) {
      if (const auto p = cpu_platform_from_key(**c)) {
        s.cpu = *p;
      } else {
        r.fail("cpu", in_quotes(**c), fmt::format("a host CPU, one of: {}", fmt::join(cpu_platform_keys(), ", ")));
      }
    }
  }
  if (!r.finish(allowed)) return std::nullopt;
  return s;
}

// {"kind": "explicit", "nodes": [...], "links": [...]}: one server as data (see
// ServerSpec::layout for what it may hold).
std::optional<ServerSpec> read_explicit_server(Reader& r) {
  const auto nodes = r.get([](JsonFields& f) { return std::cref(f.array("nodes")); });
  const auto links = r.get([](JsonFields& f) { return std::cref(f.array("links")); });
  if (!r.finish({"kind", "nodes", "links"})) return std::nullopt;
  Diagnostics& d = r.diags();
  const std::size_t before = d.size();
  auto layout = std::make_shared<Topology>();
  NodeIdMap ids;
  const std::string& base = r.base();
  read_nodes(nodes->get(), r.source(), base, *layout, ids, d);
  read_links(links->get(), r.source(), base, *layout, ids, d);
  if (d.size() != before) return std::nullopt;
  int hosts = 0, gpus = 0;
  for (std::size_t i = 0; i < layout->nodes.size(); ++i) {
    const NodeKind k = layout->nodes[i].kind;
    hosts += k == NodeKind::Host ? 1 : 0;
    gpus += k == NodeKind::Gpu ? 1 : 0;
    if (k == NodeKind::Switch) {
      d.emplace_back(r.source(), fmt::format("{}/nodes/{}/kind", base, i), "\"switch\"",
                     "no fabric switch inside a server (the fabric adds them)");
    }
  }
  if (hosts != 1) d.emplace_back(r.source(), base + "/nodes", fmt::format("{} host nodes", hosts), "exactly one node of kind \"host\"");
  if (gpus == 0) d.emplace_back(r.source(), base + "/nodes", "no gpu node", "at least one node of kind \"gpu\"");
  for (std::size_t i = 0; i < links->get().size(); ++i) {
    const std::string kind = links->get()[i].value("kind", "");
    if (kind == "ib" || kind == "roce" || kind == "ethernet") {
      d.emplace_back(r.source(), fmt::format("{}/links/{}/kind", base, i), in_quotes(kind),
                     "no network link inside a server (the fabric joins its NICs)");
    }
  }
  if (d.size() != before) return std::nullopt;
  ServerSpec s;
  s.kind = ServerKind::Explicit;
  s.layout = std::move(layout);
  return s;
}

std::optional<FabricSpec> read_fabric(Reader& r) {
  FabricSpec s;
  const auto kind = r.get([](JsonFields& f) { return f.choice("kind", enum_names<FabricKind>()); });
  if (kind) s.kind = *enum_from<FabricKind>(*kind);
  const std::vector<std::string> net_kinds{"ib", "roce", "ethernet"};
  if (auto k = r.get([&](JsonFields& f) { return f.optional("link_kind") ? f.choice("link_kind", net_kinds) : std::string("ib"); })) {
    s.link_kind = *enum_from<LinkKind>(*k);
  }
  if (auto b = r.get([](JsonFields& f) { return f.bandwidth("nic_bandwidth"); })) s.nic_bandwidth = *b;
  if (auto m = r.get([](JsonFields& f) { return f.optional_integer("mtu", kMinMtu, kMaxMtu); }); m && *m) {
    if (s.link_kind != LinkKind::Ethernet) {
      r.fail("mtu", std::to_string(**m), "no mtu except with link_kind \"ethernet\" (only TCP/IP over Ethernet is charged header overhead)");
    }
    s.mtu = static_cast<int>(**m);
  }
  if (auto v = r.get([](JsonFields& f) { return f.optional_time("latency", kMaxLatency); }); v && *v) s.latency = **v;
  if (auto v = r.get([](JsonFields& f) { return optional_net_latency(f, "net_latency"); }); v && *v) s.net = **v;
  std::vector<std::string> allowed{"kind", "link_kind", "nic_bandwidth", "mtu", "latency", "net_latency"};
  if (!kind || *kind != "star") {
    allowed.insert(allowed.end(), {"nics_per_leaf", "spines", "oversubscription"});
    if (auto n = r.get([](JsonFields& f) { return f.integer("nics_per_leaf", 1, 4096); })) s.nics_per_leaf = static_cast<int>(*n);
    if (auto n = r.get([](JsonFields& f) { return f.optional_integer("spines", 1, 4096); }); n && *n) s.spines = static_cast<int>(**n);
    if (auto o = r.get([](JsonFields& f) { return f.optional_number("oversubscription", 1.0, 1024.0); }); o && *o) {
      s.oversubscription = **o;
    }
  }
  if (!r.finish(allowed)) return std::nullopt;
  return s;
}

std::optional<Topology> read_cluster(Reader& r) {
  ClusterSpec c;
  if (auto h = r.get([](JsonFields& f) { return f.integer("hosts", 1, 100000); })) c.hosts = static_cast<int>(*h);
  std::optional<ServerSpec> server;
  std::optional<FabricSpec> fabric;
  if (auto sv = r.get([](JsonFields& f) { return std::cref(f.required("server")); })) {
    Reader sr(sv->get(), r.source(), r.pointer("server"), r.diags());
    if (auto k = sr.get([](JsonFields& f) { return f.choice("kind", enum_names<ServerKind>()); })) {
      const ServerKind kind = *enum_from<ServerKind>(*k);
      server = kind == ServerKind::Explicit ? read_explicit_server(sr) : read_server(sr, kind);
    } else {
      (void)sr.finish({"kind", "nics", "nvlink_latency", "pcie_latency", "pcie_gen", "gpu_model", "cpu"});
    }
  }
  if (auto fv = r.get([](JsonFields& f) { return std::cref(f.required("fabric")); })) {
    Reader fr(fv->get(), r.source(), r.pointer("fabric"), r.diags());
    fabric = read_fabric(fr);
  }
  if (!r.finish({"kind", "hosts", "server", "fabric"}) || !server || !fabric) return std::nullopt;
  c.server = *server;
  c.fabric = *fabric;
  return make_cluster(c);
}

std::optional<Topology> read_tcp_cluster(Reader& r) {
  TcpClusterSpec s;
  if (auto h = r.get([](JsonFields& f) { return f.integer("hosts", 1, 100000); })) s.hosts = static_cast<int>(*h);
  if (auto n = r.get([](JsonFields& f) { return f.optional_integer("nics_per_host", 1, 64); }); n && *n) s.nics_per_host = static_cast<int>(**n);
  if (auto b = r.get([](JsonFields& f) { return f.bandwidth("nic_bandwidth"); })) s.nic_bandwidth = *b;
  if (auto m = r.get([](JsonFields& f) { return f.optional_integer("mtu", kMinMtu, kMaxMtu); }); m && *m) s.mtu = static_cast<int>(**m);
  if (auto v = r.get([](JsonFields& f) { return f.optional_time("latency", kMaxLatency); }); v && *v) s.latency = **v;
  if (!r.finish({"kind", "hosts", "nics_per_host", "nic_bandwidth", "mtu", "latency"})) return std::nullopt;
  return make_tcp_cluster(s);
}

std::optional<Topology> read_star(Reader& r) {
  StarSpec s;
  if (auto h = r.get([](JsonFields& f) { return f.integer("hosts", 1, 1 << 20); })) s.hosts = static_cast<int>(*h);
  if (auto b = r.get([](JsonFields& f) { return f.bandwidth("bandwidth"); })) s.bandwidth = *b;
  if (auto v = r.get([](JsonFields& f) { return f.time("latency", kMaxLatency); })) s.latency = *v;
  if (auto k = r.get([](JsonFields& f) { return f.optional("link_kind") ? f.choice("link_kind", {"ib", "roce", "ethernet"}) : std::string("ib"); })) {
    s.link_kind = *enum_from<LinkKind>(*k);
  }
  if (auto m = r.get([](JsonFields& f) { return f.optional_integer("mtu", kMinMtu, kMaxMtu); }); m && *m) {
    if (s.link_kind != LinkKind::Ethernet) r.fail("mtu", std::to_string(**m), "no mtu except with link_kind \"ethernet\"");
    s.mtu = static_cast<int>(**m);
  }
  if (!r.finish({"kind", "hosts", "bandwidth", "latency", "link_kind", "mtu"})) return std::nullopt;
  return make_star(s);
}

std::optional<Topology> read_nvswitch_node(Reader& r) {
  NvSwitchNodeSpec s;
  if (auto g = r.get([](JsonFields& f) { return f.integer("gpus", 1, 1024); })) s.gpus = static_cast<int>(*g);
  if (auto m = r.get([](JsonFields& f) { return f.optional_string("gpu_model"); }); m && *m) {
    if (const GpuSpec* gpu = find_gpu(**m)) {
      s.gpu_model = gpu->name;
    } else {
      r.fail("gpu_model", in_quotes(**m), fmt::format("a GPU model, one of: {}", fmt::join(gpu_names(), ", ")));
    }
  }
  if (auto b = r.get([](JsonFields& f) { return f.bandwidth("bandwidth"); })) s.bandwidth = *b;
  if (auto v = r.get([](JsonFields& f) { return f.time("latency", kMaxLatency); })) s.latency = *v;
  if (!r.finish({"kind", "gpus", "gpu_model", "bandwidth", "latency"})) return std::nullopt;
  return make_nvswitch_node(s);
}

}  // namespace

std::vector<std::string> generator_kind_names() {
  std::vector<std::string> out{"star", "nvswitch_node"};
  for (const auto& s : enum_names<ServerKind>()) {
    if (s != to_string(ServerKind::Explicit)) out.push_back(s);  // a top-level explicit server is a plain file
  }
  out.emplace_back("cluster");
  out.emplace_back("tcp_cluster");
  return out;
}

std::optional<Topology> read_generator(const JsonValue& block, const std::string& source, const std::string& pointer,
                                       Diagnostics& diags) {
  Reader r(block, source, pointer, diags);
  const auto kind = r.get([](JsonFields& f) { return f.choice("kind", generator_kind_names()); });
  if (!kind) return std::nullopt;
  if (*kind == "star") return read_star(r);
  if (*kind == "nvswitch_node") return read_nvswitch_node(r);
  if (*kind == "cluster") return read_cluster(r);
  if (*kind == "tcp_cluster") return read_tcp_cluster(r);
  const auto server = read_server(r, *enum_from<ServerKind>(*kind));
  if (!server) return std::nullopt;
  return make_server(*server);
}

}  // namespace collsim
