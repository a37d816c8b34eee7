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

namespace {

// The highest class of `links`, each class given by `of`.
template <class ClassOf>
LinkClass highest(std::span<const LinkId> links, ClassOf of) {
  LinkClass out = LinkClass::NvLink;
  for (LinkId l : links) {
    out = std::max(out, of(l));
    if (out == LinkClass::Net) break;  // the highest: the rest cannot raise it
  }
  return out;
}

}  // namespace

LinkClass route_class(const Topology& topo, std::span<const LinkId> links) {
  return highest(links, [&](LinkId l) { return link_class(topo.links[l].kind); });
}

LinkClassTable::LinkClassTable(const Topology& topo) {
  of_.reserve(topo.links.size());
  for (const auto& link : topo.links) of_.push_back(link_class(link.kind));
}

LinkClass LinkClassTable::route_class(std::span<const LinkId> links) const {
  return highest(links, [&](LinkId l) { return of_[l]; });
}

}  // namespace collsim
