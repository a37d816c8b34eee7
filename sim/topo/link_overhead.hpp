// Link classes (nvlink / pcie / net) and the payload rate a link carries after protocol
// headers: Ethernet (TCP/IP) pays rate x (MTU - 52) / (MTU + 14); other kinds carry their
// line rate. Rates in bytes/s, MTU in bytes.
#pragma once

#include <string_view>

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// The three hardware classes NCCL's cost model distinguishes (NVLINK, PCI, NET).
enum class LinkClass : std::uint8_t { NvLink, Pcie, Net };

[[nodiscard]] LinkClass link_class(LinkKind k);
[[nodiscard]] std::string_view to_string(LinkClass c);

// TCP/IP over Ethernet, with TCP timestamps: IPv4 20 + TCP 32 header bytes in every
// MTU-sized packet, and 14 bytes of Ethernet header per frame on the wire (tbf counts
// whole frames; /work/shared/reference/testbed.md). Preamble and FCS are not charged.
inline constexpr int kTcpIpHeaderBytes = 52;
inline constexpr int kEthernetHeaderBytes = 14;
inline constexpr int kMinMtu = 576;    // smallest IPv4 MTU every host must accept (RFC 791)
inline constexpr int kMaxMtu = 9216;   // largest jumbo frame common Ethernet switches accept
inline constexpr int kDefaultMtu = 1500;

// Payload share of the line rate: (mtu - 52) / (mtu + 14) for ethernet, 1 otherwise.
[[nodiscard]] double payload_fraction(LinkKind k, int mtu);
[[nodiscard]] Bandwidth payload_rate(LinkKind k, Bandwidth line_rate, int mtu);

}  // namespace collsim
