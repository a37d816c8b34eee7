// Element types of parameters and buffers (as torch names them) and their sizes in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"

namespace collsim {

enum class DType : std::uint8_t { Float32, Float16, BFloat16, Float64, Int64, Int32, UInt8 };
template <>
inline constexpr auto kEnumNames<DType> =
    names_in_order<DType>({"float32", "float16", "bfloat16", "float64", "int64", "int32", "uint8"});

[[nodiscard]] std::int64_t element_size(DType t);  // bytes per element

}  // namespace collsim
