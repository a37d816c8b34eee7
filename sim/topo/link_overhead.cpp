#include "sim/topo/link_overhead.hpp"

namespace collsim {

double payload_fraction(LinkKind k, int mtu) {
  if (k != LinkKind::Ethernet) return 1.0;
  return static_cast<double>(mtu - kTcpIpHeaderBytes) / static_cast<double>(mtu + kEthernetHeaderBytes);
}

Bandwidth payload_rate(LinkKind k, Bandwidth line_rate, int mtu) {
  return Bandwidth{line_rate.bytes_per_s * payload_fraction(k, mtu)};
}

}  // namespace collsim
