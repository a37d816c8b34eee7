// Typed errors of collsim. Library code throws; main() maps ConfigError to exit code 2
// (bad input) and anything else to exit code 1 (internal failure).
#pragma once

#include <stdexcept>
#include <string>

namespace collsim {

// Bad user input: names where (file or flag), which field (JSON pointer or option),
// the offending value, and what was expected.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string source, std::string field, std::string value, std::string expected);

  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& value() const { return value_; }
  [[nodiscard]] const std::string& expected() const { return expected_; }

 private:
  std::string source_, field_, value_, expected_;
};

// Raised by unit parsing before the caller knows the source and field; the caller
// rethrows it as a ConfigError with context.
class UnitError : public std::runtime_error {
 public:
  UnitError(std::string value, std::string expected)
      : std::runtime_error(expected), value_(std::move(value)), expected_(std::move(expected)) {}
  [[nodiscard]] const std::string& value() const { return value_; }
  [[nodiscard]] const std::string& expected() const { return expected_; }

 private:
  std::string value_, expected_;
};

// A computed quantity left the range of its integer: a simulated time past 2^63 ps (about
// 106 days) or a byte count past 2^63 B. Inputs that are each inside their documented range
// can still combine into one (a petabyte over a 1 bps link), so this is bad input, not a
// bug: main() exits 2, and a command that knows which flag or file caused it rethrows it as
// a ConfigError naming that flag or file.
class OverflowError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

// Input whose work would pass a documented resource limit (a schedule's memory): bad input,
// exit 2. The message says what it would need, the limit and how to raise it.
class LimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken invariant inside collsim (a bug, not bad input).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace collsim
