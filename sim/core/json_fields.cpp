#include "sim/core/json_fields.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"

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

std::string brief(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into a line and column a person can find.
    std::size_t line = 1, col = 1;
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    throw ConfigError(source, fmt::format("line {}, column {}", line, col), "",
                      fmt::format("well-formed JSON ({})", what));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "", "a readable file (it does not exist or cannot be opened)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

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
std::optional<Time> JsonFields::optional_time(std::string_view key) {
  return parse_unit_field<Time>(*this, key, kExpectedTime, parse_time);
}
Time JsonFields::time(std::string_view key) {
  (void)required(key);
  return *optional_time(key);
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
  fail(key, fmt::format("\"{}\"", s), fmt::format("one of: {}", fmt::join(choices, ", ")));
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
