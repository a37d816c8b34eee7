// Where a plan file sets each options field: the library names a bad option by its field
// ("accumulate", "reduce_bucket_bytes"), with an empty source; a plan's error names the
// JSON pointer of the key that set it ("/strategies/2/accumulate").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/error.hpp"

namespace collsim {

// The pointer of the plan key that sets `field` for candidate `candidate` and strategy
// `strategy` (indices into /candidates and /strategies); nullopt for a field no key sets.
[[nodiscard]] std::optional<std::string> plan_field_pointer(std::string_view field, std::size_t candidate, std::size_t strategy);

// A library error (empty source, a field the table knows) restated against the plan file
// `source`; any other error unchanged.
[[nodiscard]] ConfigError in_plan(const ConfigError& e, const std::string& source, std::size_t candidate, std::size_t strategy);

}  // namespace collsim
