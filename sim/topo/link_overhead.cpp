#include "sim/topo/link_overhead.hpp"

namespace collsim {

LinkClass link_class(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch: return LinkClass::NvLink;
    case LinkKind::Pcie: return LinkClass::Pcie;
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet: return LinkClass::Net;
  }
  return LinkClass::Net;
}

std::string_view to_string(LinkClass c) {
  switch (c) {
    case LinkClass::NvLink: return "nvlink";
    case LinkClass::Pcie: return "pcie";
    case LinkClass::Net: return "net";
  }
  return "?";
}

double payload_fraction(LinkKind k, int mtu) {
  if (k != LinkKind::Ethernet) return 1.0;
  return static_cast<double>(mtu - kTcpIpHeaderBytes) / static_cast<double>(mtu + kEthernetHeaderBytes);
}

Bandwidth payload_rate(LinkKind k, Bandwidth line_rate, int mtu) {
  return Bandwidth{line_rate.bytes_per_s * payload_fraction(k, mtu)};
}

}  // namespace collsim
