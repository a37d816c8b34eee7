// The library names a bad option by its field in the options struct ("accumulate",
// "reduce_bucket_bytes"), with an empty source; the command line names the flag the user
// typed. One table maps the one to the other, applied where the CLI reports errors.
#pragma once

#include <optional>
#include <string_view>

#include "sim/core/error.hpp"

namespace collsim::cli {

// The flag that sets an options field ("accumulate" -> "--accumulate"); nullopt for a
// field no flag sets.
[[nodiscard]] std::optional<std::string_view> flag_for_field(std::string_view field);

// A library error (empty source, a field the table knows) restated with its flag as the
// source: "--accumulate: got 0, expected ..."; any other error unchanged.
[[nodiscard]] ConfigError with_flag(const ConfigError& e);

}  // namespace collsim::cli
