#include "sim/core/json_fields.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"

namespace collsim {

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string element_pointer(std::string_view key, std::size_t i) { return fmt::format("/{}/{}", key, i); }

std::string brief(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

namespace {

// Line and column (1-based) of byte `offset` of `text`.
std::string line_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  const std::size_t end = std::min(offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("line {}, column {}", line, col);
}

// Throws when arrays and objects nest deeper than kMaxJsonDepth: no collsim input needs
// more than a dozen levels, and a bound keeps every recursive walk (error messages, copies)
// far from the stack's end.
void check_depth(const std::string& text, const std::string& source) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw ConfigError(source, line_column(text, i), "", fmt::format("JSON nested at most {} levels deep", kMaxJsonDepth));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

template <class Json>
Json parse_json_as(const std::string& text, const std::string& source) {
  check_depth(text, source);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    throw ConfigError(source, line_column(text, e.byte == 0 ? 0 : e.byte - 1), "", fmt::format("well-formed JSON ({})", what));
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann reports a number beyond double's range (1e400) as out_of_range.406.
    std::string what = e.what();
    const auto pos = what.find("number overflow");
    throw ConfigError(source, "", pos == std::string::npos ? what : what.substr(pos),
                      "numbers within the range of a double (about 1.8e308)");
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  return parse_json_as<nlohmann::json>(text, source);
}

nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source) {
  return parse_json_as<nlohmann::ordered_json>(text, source);
}

std::uint64_t max_input_bytes() {
  if (const char* env = std::getenv("COLLSIM_MAX_INPUT_BYTES"); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && v > 0) return v;
    throw ConfigError("COLLSIM_MAX_INPUT_BYTES", "", in_quotes(env), "a positive whole number of bytes");
  }
  return kDefaultMaxInputBytes;
}

std::string read_input_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, "", "a directory", "a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "unreadable", "a readable file (it does not exist or cannot be opened)");
  // Read in blocks and stop at the limit: a pipe or /dev/zero has no size to ask for.
  const std::uint64_t limit = max_input_bytes();
  std::string text;
  char block[1 << 16];
  while (in.read(block, sizeof block) || in.gcount() > 0) {
    text.append(block, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit) {
      throw ConfigError(path, "", fmt::format("more than {} bytes", limit),
                        "an input file within the size limit (raise it with COLLSIM_MAX_INPUT_BYTES)");
    }
  }
  if (in.bad()) throw ConfigError(path, "", "", "a readable file (reading it failed)");
  return text;
}

nlohmann::json read_json_file(const std::string& path) { return parse_json_text(read_input_file(path), path); }

JsonFields::JsonFields(const nlohmann::json& object, std::string source, std::string pointer)
    : object_(object), source_(std::move(source)), pointer_(std::move(pointer)) {
  if (!object_.is_object()) {
    throw ConfigError(source_, pointer_.empty() ? "/" : pointer_, brief(object_), "a JSON object");
  }
}

std::string JsonFields::pointer(std::string_view key) const { return pointer_ + "/" + pointer_token(key); }

void JsonFields::fail(std::string_view key, const std::string& value, const std::string& expected) const {
  throw ConfigError(source_, pointer(key), value, expected);
}

bool JsonFields::has(std::string_view key) const { return object_.contains(std::string(key)); }

const nlohmann::json* JsonFields::optional(std::string_view key) {
  known_.emplace(key);
  const auto it = object_.find(std::string(key));
  return it == object_.end() ? nullptr : &*it;
}

const nlohmann::json& JsonFields::required(std::string_view key) {
  const nlohmann::json* v = optional(key);
  if (v == nullptr) throw ConfigError(source_, pointer(key), "", "this field, which is required (it is missing)");
  return *v;
}

std::optional<std::string> JsonFields::optional_string(std::string_view key) {
  const nlohmann::json* v = optional(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) fail(key, brief(*v), "a string");
  return v->get<std::string>();
}

std::string JsonFields::string(std::string_view key) {
  const nlohmann::json& v = required(key);
  if (!v.is_string()) fail(key, brief(v), "a string");
  return v.get<std::string>();
}

std::optional<std::int64_t> JsonFields::optional_integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const nlohmann::json* v = optional(key);
  if (v == nullptr) return std::nullopt;
  const std::string expected = fmt::format("an integer from {} to {}", min, max);
  if (!v->is_number_integer()) fail(key, brief(*v), expected);
  const auto n = v->get<std::int64_t>();
  if (n < min || n > max) fail(key, brief(*v), expected);
  return n;
}

std::int64_t JsonFields::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  (void)required(key);
  return *optional_integer(key, min, max);
}

std::optional<double> JsonFields::optional_number(std::string_view key, double min, double max) {
  const nlohmann::json* v = optional(key);
  if (v == nullptr) return std::nullopt;
  const std::string expected = fmt::format("a number from {:g} to {:g}", min, max);
  if (!v->is_number()) fail(key, brief(*v), expected);
  const double n = v->get<double>();
  if (!(n >= min && n <= max)) fail(key, brief(*v), expected);
  return n;
}

double JsonFields::number(std::string_view key, double min, double max) {
  (void)required(key);
  return *optional_number(key, min, max);
}

bool JsonFields::boolean(std::string_view key, bool fallback) {
  const nlohmann::json* v = optional(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) fail(key, brief(*v), "true or false");
  return v->get<bool>();
}

namespace {
template <typename T, typename Parse>
std::optional<T> parse_unit_field(JsonFields& f, std::string_view key, std::string_view expected, Parse parse) {
  const nlohmann::json* v = f.optional(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) f.fail(key, brief(*v), std::string(expected));
  try {
    return parse(v->get<std::string>());
  } catch (const UnitError& e) {
    f.fail(key, e.value(), e.expected());
  }
}
}  // namespace

std::optional<Bandwidth> JsonFields::optional_bandwidth(std::string_view key) {
  return parse_unit_field<Bandwidth>(*this, key, kExpectedBandwidth, parse_bandwidth);
}
Bandwidth JsonFields::bandwidth(std::string_view key) {
  (void)required(key);
  return *optional_bandwidth(key);
}
std::optional<Time> JsonFields::optional_time(std::string_view key, Time max) {
  return parse_unit_field<Time>(*this, key, expected_time(max), [max](std::string_view t) { return parse_time(t, max); });
}
Time JsonFields::time(std::string_view key, Time max) {
  (void)required(key);
  return *optional_time(key, max);
}
std::optional<double> JsonFields::optional_duration_s(std::string_view key) {
  return parse_unit_field<double>(*this, key, kExpectedDuration, parse_duration_s);
}
double JsonFields::duration_s(std::string_view key) {
  (void)required(key);
  return *optional_duration_s(key);
}
std::optional<Bytes> JsonFields::optional_size(std::string_view key) {
  return parse_unit_field<Bytes>(*this, key, kExpectedSize, parse_size);
}
Bytes JsonFields::size(std::string_view key) {
  (void)required(key);
  return *optional_size(key);
}

std::string JsonFields::choice(std::string_view key, const std::vector<std::string>& choices) {
  const std::string s = string(key);
  for (const auto& c : choices) {
    if (c == s) return s;
  }
  fail(key, in_quotes(s), fmt::format("one of: {}", fmt::join(choices, ", ")));
}

const nlohmann::json& JsonFields::array(std::string_view key) {
  const nlohmann::json& v = required(key);
  if (!v.is_array()) fail(key, brief(v), "an array");
  return v;
}

void JsonFields::finish() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (known_.find(it.key()) == known_.end()) {
      throw ConfigError(source_, pointer(it.key()), fmt::format("unknown key \"{}\"", it.key()),
                        fmt::format("only these keys here: {}", fmt::join(known_, ", ")));
    }
  }
}

}  // namespace collsim
