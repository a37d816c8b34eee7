#include "sim/topo/net_transport.hpp"

#include <array>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"

namespace collsim {

namespace {

// Upper bound for a plugin latency: far above any published figure, low enough that a
// typo in the unit ("75s") is refused.
constexpr Time kMaxNetLatency = Time::from_ms(10);

constexpr std::array<NetTransport, 7> kTransports{{
    {"ib-verbs", 0.0, true,
     "NCCL src/transport/net_ib.cc, ncclIbGetProperties: props->latency = 0; ptrSupport |= NCCL_PTR_CUDA with "
     "nv_peermem or DMA-BUF (InfiniBand and RoCE verbs)"},
    {"socket", 0.0, false,
     "NCCL src/transport/net_socket.cc, ncclNetSocketGetProperties: props->latency = 0, props->ptrSupport = "
     "NCCL_PTR_HOST (TCP sockets: host memory only)"},
    {"tcpxo", 0.0, true,
     "google/nccl-plugin-gpudirect-tcpxo, tcpdirect_plugin/fastrak_offload/nccl_shim.cc, GetProperties: props.latency "
     "= 0; GPUDirect-TCPXO moves payloads to and from GPU memory (GCP A3 Mega)"},
    {"efa-p4d", 75.0, true,
     "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p4d.24xlarge and p4de.24xlarge, .latency = 75.0, "
     ".gdr_required = true"},
    {"efa-p5", 75.0, true,
     "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p5 and p5e (\"^p5(e?\\..*)\"), .latency = 75.0, "
     ".gdr_required = true"},
    {"efa-p5en", 35.0, true,
     "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p5en and later p-series, .latency = 35.0, "
     ".gdr_required = true"},
    {"efa-p3dn", 150.0, false,
     "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p3dn.24xlarge, .latency = 150.0, .gdr_required = "
     "false (no GPUDirect RDMA over EFA)"},
}};

}  // namespace

std::span<const NetTransport> net_transports() { return kTransports; }

std::optional<NetSetting> optional_net_latency(JsonFields& f, std::string_view key) {
  const nlohmann::json* v = f.optional(key);
  if (v == nullptr) return std::nullopt;
  std::string names;
  for (const NetTransport& t : kTransports) names += fmt::format("{}{}", names.empty() ? "" : ", ", t.name);
  const std::string expected = fmt::format("a transport ({}) or a time up to 10 ms, such as \"75us\"", names);
  if (!v->is_string()) f.fail(key, brief(*v), expected);
  const std::string text = v->get<std::string>();
  for (const NetTransport& t : kTransports) {
    if (t.name == text) return NetSetting{Time::from_seconds(t.latency_us * 1e-6), t.gpu_direct};
  }
  try {
    return NetSetting{parse_time(text, kMaxNetLatency), std::nullopt};
  } catch (const UnitError&) {
    f.fail(key, brief(*v), expected);
  }
}

}  // namespace collsim
