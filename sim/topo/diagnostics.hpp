// Collects every input error of a topology file instead of stopping at the first one,
// so `collsim topo validate` can list them all. Each entry is a ConfigError (file, JSON
// pointer, value, expectation).
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace collsim {

using Diagnostics = std::vector<ConfigError>;

// Runs `f`; a ConfigError it throws is recorded and nullopt (or false) returned.
template <typename F>
auto attempt(Diagnostics& diags, F&& f) {
  using R = std::invoke_result_t<F>;
  if constexpr (std::is_void_v<R>) {
    try {
      f();
      return true;
    } catch (const ConfigError& e) {
      diags.push_back(e);
      return false;
    }
  } else {
    try {
      return std::optional<R>(f());
    } catch (const ConfigError& e) {
      diags.push_back(e);
      return std::optional<R>();
    }
  }
}

// Records one error per key of `object` that is not in `allowed`.
void check_keys(const nlohmann::json& object, const std::vector<std::string>& allowed, const std::string& source,
                const std::string& pointer, Diagnostics& diags);

}  // namespace collsim
