// The payload rate a link carries after protocol headers: Ethernet (TCP/IP) pays
// rate x (MTU - 52) / (MTU + 14); other kinds carry their line rate. Rates in bytes/s,
// MTU in bytes. (NCCL's link classes nvlink / pci / net are in sim/coll/link_class.hpp.)
#pragma once

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// TCP/IP over Ethernet, with TCP timestamps: IPv4 20 + TCP 32 header bytes in every
// MTU-sized packet, and 14 bytes of Ethernet header per frame on the wire (tbf counts
// whole frames; docs/measurement-and-validation.md, "The test bed"). Preamble and FCS are
// not charged.
inline constexpr int kTcpIpHeaderBytes = 52;
inline constexpr int kEthernetHeaderBytes = 14;
inline constexpr int kMinMtu = 576;    // smallest IPv4 MTU every host must accept (RFC 791)
inline constexpr int kMaxMtu = 9216;   // largest jumbo frame common Ethernet switches accept
inline constexpr int kDefaultMtu = 1500;

// Payload share of the line rate: (mtu - 52) / (mtu + 14) for ethernet, 1 otherwise.
[[nodiscard]] double payload_fraction(LinkKind k, int mtu);
[[nodiscard]] Bandwidth payload_rate(LinkKind k, Bandwidth line_rate, int mtu);

}  // namespace collsim
