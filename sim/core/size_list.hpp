// Parses a list of message sizes: "1MiB", "1KiB,4KiB,1MiB", or a range "1KiB:1GiB"
// stepped by a multiplicative factor (nccl-tests' -b/-e/-f).
#pragma once

#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

// Throws UnitError (value + expectation) when the text does not parse, a size is above
// kMaxMessageBytes (sim/core/unit_parse.hpp) or the factor is not > 1 for a range.
[[nodiscard]] std::vector<Bytes> parse_size_list(std::string_view text, double factor);

}  // namespace collsim
