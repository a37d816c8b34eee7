#include "sim/core/version.hpp"

#include "collsim_version_info.hpp"  // generated into the build tree by cmake/version.cmake

namespace collsim {

const std::string& version_string() {
  static const std::string v = COLLSIM_VERSION_STRING;
  return v;
}

}  // namespace collsim
