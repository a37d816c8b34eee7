// CLI11 validators that say what was expected in collsim's words ("got X, expected Y"), so
// a bad value is refused while the command line is parsed (exit 2) and names its flag.
// Ranges of integers use CLI::Range, lists ->delimiter(','); these cover the rest.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace collsim::cli {

// A number from `lo` to `hi` (inclusive; `lo` itself excluded when `open_low`).
[[nodiscard]] CLI::Validator number_range(double lo, double hi, bool open_low, std::string expected);

// A word the library's vocabulary knows (`known` is its parser), e.g. a sharding name.
[[nodiscard]] CLI::Validator vocabulary(std::function<bool(std::string_view)> known, std::string expected);

// "10%" or "10" (percent, 0 to 1000) as a fraction; nullopt for anything else.
[[nodiscard]] std::optional<double> percent_fraction(std::string_view text);
// A percentage, replaced by its fraction for the option's double ("10%" -> 0.1).
[[nodiscard]] CLI::Validator percent();

}  // namespace collsim::cli
