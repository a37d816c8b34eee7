#include "sim/topo/diagnostics.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"

namespace collsim {

void check_keys(const nlohmann::json& object, const std::vector<std::string>& allowed, const std::string& source,
                const std::string& pointer, Diagnostics& diags) {
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      diags.emplace_back(source, pointer + "/" + pointer_token(it.key()), fmt::format("unknown key \"{}\"", it.key()),
                         fmt::format("only these keys here: {}", fmt::join(allowed, ", ")));
    }
  }
}

}  // namespace collsim
