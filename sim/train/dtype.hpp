// Element types of parameters and buffers (as torch names them) and their sizes in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

enum class DType : std::uint8_t { Float32, Float16, BFloat16, Float64, Int64, Int32, UInt8 };

[[nodiscard]] std::int64_t element_size(DType t);  // bytes per element
[[nodiscard]] std::string_view to_string(DType t);  // "float32", ...
[[nodiscard]] std::optional<DType> dtype_from(std::string_view s);
[[nodiscard]] std::vector<std::string> dtype_names();

}  // namespace collsim
