#include "sim/cli/validators.hpp"

#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace collsim::cli {

CLI::Validator number_range(double lo, double hi, bool open_low, std::string expected) {
  return CLI::Validator(
      [lo, hi, open_low, expected](std::string& input) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(input.c_str(), &end);
        const bool number = !input.empty() && end == input.c_str() + input.size();
        if (number && (open_low ? v > lo : v >= lo) && v <= hi) return {};
        return fmt::format("got {}, expected {}", input, expected);
      },
      "");
}

CLI::Validator vocabulary(std::function<bool(std::string_view)> known, std::string expected) {
  return CLI::Validator(
      [known = std::move(known), expected](std::string& input) -> std::string {
        if (known(input)) return {};
        return fmt::format("got \"{}\", expected {}", input, expected);
      },
      "");
}

std::optional<double> percent_fraction(std::string_view text) {
  std::string t(text);
  if (!t.empty() && t.back() == '%') t.pop_back();
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !(v >= 0) || v > 1000) return std::nullopt;
  return v / 100.0;
}

CLI::Validator percent() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        const auto f = percent_fraction(input);
        if (!f) return fmt::format("got \"{}\", expected a percentage like 10% or 0.5%", input);
        input = fmt::format("{}", *f);  // shortest text that reads back as the same double
        return {};
      },
      "");
}

}  // namespace collsim::cli
