// Times for hand-written unit-test expectations, in whole microseconds.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"

namespace collsim::test {

inline Time us(std::int64_t v) { return Time::from_us(v); }

}  // namespace collsim::test
