// A strict reader for one JSON object of an input file: typed getters that parse units,
// JSON pointers for every field, and an error for any key nobody asked for.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace collsim {

// Input limits: JSON deeper than kMaxJsonDepth levels and files larger than
// max_input_bytes() (kDefaultMaxInputBytes, or $COLLSIM_MAX_INPUT_BYTES) are refused with a
// ConfigError, so no input can exhaust the stack or the memory.
inline constexpr int kMaxJsonDepth = 256;
inline constexpr std::uint64_t kDefaultMaxInputBytes = std::uint64_t{1} << 30;
[[nodiscard]] std::uint64_t max_input_bytes();

// Reads a whole input file (not a directory, at most max_input_bytes()).
[[nodiscard]] std::string read_input_file(const std::string& path);

// Reads and parses a JSON file; a missing file, malformed JSON, a number beyond double's
// range or nesting beyond kMaxJsonDepth is a ConfigError that names the file and, where it
// can, the line and column.
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);
[[nodiscard]] nlohmann::json parse_json_text(const std::string& text, const std::string& source);
[[nodiscard]] nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source);

// Renders a JSON value briefly for an error message.
[[nodiscard]] std::string brief(const nlohmann::json& v);

class JsonFields {
 public:
  // Throws ConfigError unless `object` is a JSON object.
  JsonFields(const nlohmann::json& object, std::string source, std::string pointer);

  [[nodiscard]] bool has(std::string_view key) const;
  // The raw value (marks the key as known). Missing required keys throw.
  [[nodiscard]] const nlohmann::json& required(std::string_view key);
  [[nodiscard]] const nlohmann::json* optional(std::string_view key);

  [[nodiscard]] std::string string(std::string_view key);
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key);
  [[nodiscard]] std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  [[nodiscard]] std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t min, std::int64_t max);
  [[nodiscard]] double number(std::string_view key, double min, double max);
  [[nodiscard]] std::optional<double> optional_number(std::string_view key, double min, double max);
  [[nodiscard]] bool boolean(std::string_view key, bool fallback);
  [[nodiscard]] Bandwidth bandwidth(std::string_view key);
  [[nodiscard]] std::optional<Bandwidth> optional_bandwidth(std::string_view key);
  // A time from 0 to `max` (a range from sim/core/unit_parse.hpp: kMaxLatency, kMaxTaskTime).
  [[nodiscard]] Time time(std::string_view key, Time max);
  [[nodiscard]] std::optional<Time> optional_time(std::string_view key, Time max);
  // A duration of hours to years in seconds (parse_duration_s: ms, s, min, h, d; > 0, <= 1e12 s).
  [[nodiscard]] double duration_s(std::string_view key);
  [[nodiscard]] std::optional<double> optional_duration_s(std::string_view key);
  [[nodiscard]] Bytes size(std::string_view key);
  [[nodiscard]] std::optional<Bytes> optional_size(std::string_view key);
  // A string that must be one of `choices`.
  [[nodiscard]] std::string choice(std::string_view key, const std::vector<std::string>& choices);
  [[nodiscard]] const nlohmann::json& array(std::string_view key);

  // Throws ConfigError naming the first key that no getter asked for.
  void finish() const;

  [[nodiscard]] std::string pointer(std::string_view key) const;
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& base() const { return pointer_; }
  // A ConfigError at this object's `key`.
  [[noreturn]] void fail(std::string_view key, const std::string& value, const std::string& expected) const;

 private:
  const nlohmann::json& object_;
  std::string source_;
  std::string pointer_;
  std::set<std::string, std::less<>> known_;
};

// Escapes one JSON-pointer token (RFC 6901).
[[nodiscard]] std::string pointer_token(std::string_view key);
// The pointer of element `i` of the top-level array `key`: "/key/i".
[[nodiscard]] std::string element_pointer(std::string_view key, std::size_t i);

}  // namespace collsim
