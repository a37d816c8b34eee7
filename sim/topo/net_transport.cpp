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
    {"ib-verbs", 0.0, "NCCL src/transport/net_ib.cc, ncclIbGetProperties: props->latency = 0 (InfiniBand and RoCE verbs)"},
    {"socket", 0.0, "NCCL src/transport/net_socket.cc, ncclNetSocketGetProperties: props->latency = 0 (TCP sockets)"},
    {"tcpxo", 0.0, "google/nccl-plugin-gpudirect-tcpxo, tcpdirect_plugin/fastrak_offload/nccl_shim.cc, GetProperties: props.latency = 0 (GCP A3 Mega)"},
    {"efa-p4d", 75.0, "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p4d.24xlarge and p4de.24xlarge, .latency = 75.0"},
    {"efa-p5", 75.0, "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p5 and p5e (\"^p5(e?\\..*)\"), .latency = 75.0"},
    {"efa-p5en", 35.0, "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p5en and later p-series, .latency = 35.0"},
    {"efa-p3dn", 150.0, "aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map: p3dn.24xlarge, .latency = 150.0"},
}};

}  // namespace

std::span<const NetTransport> net_transports() { return kTransports; }

std::optional<Time> optional_net_latency(JsonFields& f, std::string_view key) {
  const nlohmann::json* v = f.optional(key);
  if (v == nullptr) return std::nullopt;
  std::string names;
  for (const NetTransport& t : kTransports) names += fmt::format("{}{}", names.empty() ? "" : ", ", t.name);
  const std::string expected = fmt::format("a transport ({}) or a time up to 10 ms, such as \"75us\"", names);
  if (!v->is_string()) f.fail(key, brief(*v), expected);
  const std::string text = v->get<std::string>();
  for (const NetTransport& t : kTransports) {
    if (t.name == text) return Time::from_seconds(t.latency_us * 1e-6);
  }
  try {
    return parse_time(text, kMaxNetLatency);
  } catch (const UnitError&) {
    f.fail(key, brief(*v), expected);
  }
}

}  // namespace collsim
