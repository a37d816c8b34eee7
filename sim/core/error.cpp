#include "sim/core/error.hpp"

#include <fmt/format.h>

namespace collsim {

namespace {
std::string compose(const std::string& source, const std::string& field, const std::string& value,
                    const std::string& expected) {
  std::string where = source;
  if (!field.empty()) where += where.empty() ? field : ": " + field;
  if (value.empty()) return fmt::format("{}: {}", where, expected);
  return fmt::format("{}: got {}, expected {}", where, value, expected);
}
}  // namespace

ConfigError::ConfigError(std::string source, std::string field, std::string value, std::string expected)
    : std::runtime_error(compose(source, field, value, expected)),
      source_(std::move(source)),
      field_(std::move(field)),
      value_(std::move(value)),
      expected_(std::move(expected)) {}

}  // namespace collsim
