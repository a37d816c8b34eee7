#include "sim/coll/link_class.hpp"

#include <algorithm>

namespace collsim {

LinkClass route_class(const Topology& topo, std::span<const LinkId> links) {
  LinkClass out = LinkClass::NvLink;
  for (LinkId l : links) out = std::max(out, link_class(topo.links[l].kind));
  return out;
}

}  // namespace collsim
