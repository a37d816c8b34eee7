// Small text helpers for names and error messages.
#pragma once

#include <string>
#include <string_view>

namespace collsim {

// `text` in ASCII lower case: names that are matched without regard to case.
[[nodiscard]] std::string to_lower(std::string_view text);
// `text` in double quotes, as an error message shows a value the user wrote.
[[nodiscard]] std::string in_quotes(std::string_view text);

}  // namespace collsim
