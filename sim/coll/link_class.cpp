#include "sim/coll/link_class.hpp"

#include <algorithm>

#include "sim/core/name_table.hpp"

namespace collsim {

LinkClass link_class(LinkKind kind) {
  switch (kind) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch: return LinkClass::NvLink;
    case LinkKind::Pcie: return LinkClass::Pci;
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet: return LinkClass::Net;
  }
  return LinkClass::Net;
}

LinkClass route_class(const Topology& topo, std::span<const LinkId> links) {
  LinkClass out = LinkClass::NvLink;
  for (LinkId l : links) out = std::max(out, link_class(topo.links[l].kind));
  return out;
}

}  // namespace collsim
