// Which collsim this is: the project version from CMake's project(VERSION) plus, in a git
// checkout, the commit it was built from ("0.5.0+g7643b9a"). Every JSON document collsim
// writes records it under "collsim_version", so a stored baseline says what made it.
#pragma once

#include <string>

namespace collsim {

[[nodiscard]] const std::string& version_string();

// The key under which JSON outputs record version_string().
inline constexpr const char* kVersionKey = "collsim_version";

}  // namespace collsim
