#include "sim/train/workload.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"

namespace collsim {

Bytes Workload::parameter_bytes() const {
  Bytes b{};
  for (const auto& p : parameters) b += p.bytes();
  return b;
}

std::int64_t Workload::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& p : parameters) n += p.numel;
  return n;
}

bool Parameter::unused_in(std::int64_t step) const {
  return unused_in_every_step || std::find(unused_in_steps.begin(), unused_in_steps.end(), step) != unused_in_steps.end();
}

std::vector<std::size_t> Workload::grad_ready_order() const {
  std::vector<std::size_t> order;
  order.reserve(parameters.size());
  for (auto l = layers.rbegin(); l != layers.rend(); ++l) order.insert(order.end(), l->params.begin(), l->params.end());
  return order;
}

Bytes Workload::activation_bytes_per_sample() const {
  Bytes b{};
  for (const auto& l : layers) b += l.activation_bytes_per_sample;
  return b;
}

namespace {

constexpr std::int64_t kMaxElements = std::int64_t{1} << 46;

DType read_dtype(JsonFields& f) { return *enum_from<DType>(f.choice("dtype", enum_names<DType>())); }

Parameter read_parameter(const nlohmann::json& j, const std::string& source, const std::string& pointer) {
  JsonFields f(j, source, pointer);
  Parameter p;
  p.name = f.string("name");
  if (p.name.empty()) f.fail("name", "\"\"", "a non-empty parameter name");
  p.numel = f.integer("numel", 1, kMaxElements);
  p.dtype = read_dtype(f);
  p.sparse_gradient = f.boolean("sparse", false);
  if (const auto* shape = f.optional("shape")) {
    if (!shape->is_array() || shape->empty()) f.fail("shape", brief(*shape), "an array of positive dimension sizes");
    std::int64_t product = 1;
    for (const auto& d : *shape) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1) f.fail("shape", brief(*shape), "an array of positive integers");
      p.shape.push_back(d.get<std::int64_t>());
      if (p.shape.back() > kMaxElements / product) f.fail("shape", brief(*shape), "dimensions whose product is numel");
      product *= p.shape.back();
    }
    if (product != p.numel) {
      f.fail("shape", brief(*shape), fmt::format("dimensions whose product is numel ({})", p.numel));
    }
  }
  if (const auto* unused = f.optional("unused_in_steps")) {
    constexpr const char* kExpected = "\"all\" or an array of step numbers from 0 to 2^31 - 1";
    if (unused->is_string()) {
      if (unused->get<std::string>() != "all") f.fail("unused_in_steps", brief(*unused), kExpected);
      p.unused_in_every_step = true;
    } else if (unused->is_array()) {
      for (const auto& s : *unused) {
        if (!s.is_number_integer() || s.get<std::int64_t>() < 0 || s.get<std::int64_t>() > INT32_MAX) {
          f.fail("unused_in_steps", brief(*unused), kExpected);
        }
        p.unused_in_steps.push_back(s.get<std::int64_t>());
      }
    } else {
      f.fail("unused_in_steps", brief(*unused), kExpected);
    }
  }
  f.finish();
  return p;
}

Layer read_layer(const nlohmann::json& j, const std::string& source, const std::string& pointer,
                 const std::map<std::string, std::size_t, std::less<>>& index, std::vector<int>& owner, int layer_no,
                 bool& timed) {
  JsonFields f(j, source, pointer);
  Layer l;
  l.name = f.string("name");
  const bool has_time = f.has("forward_time") || f.has("backward_time");
  const bool has_flops = f.has("forward_flops") || f.has("backward_flops");
  if (has_time && has_flops) {
    f.fail("forward_time", "both times and FLOPs", "either forward_time/backward_time or forward_flops/backward_flops");
  }
  if (has_time) {
    l.compute.forward_time = f.time("forward_time", kMaxTaskTime);
    l.compute.backward_time = f.time("backward_time", kMaxTaskTime);
    timed = true;
  } else {
    l.compute.forward_flops = f.number("forward_flops", 0, 1e21);
    l.compute.backward_flops = f.number("backward_flops", 0, 1e21);
  }
  // Integers of bytes; 2^50 per sample is far beyond any GPU's memory.
  constexpr std::int64_t kMaxSampleBytes = std::int64_t{1} << 50;
  l.activation_bytes_per_sample = Bytes{f.optional_integer("activation_bytes_per_sample", 0, kMaxSampleBytes).value_or(0)};
  l.checkpoint_bytes_per_sample = Bytes{f.optional_integer("checkpoint_bytes_per_sample", 0, kMaxSampleBytes).value_or(0)};
  const nlohmann::json& params = f.array("params");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string where = fmt::format("{}/params/{}", pointer, i);
    if (!params[i].is_string()) throw ConfigError(source, where, brief(params[i]), "a parameter name");
    const auto name = params[i].get<std::string>();
    const auto it = index.find(name);
    if (it == index.end()) throw ConfigError(source, where, brief(params[i]), "the name of an entry of /parameters");
    if (owner[it->second] >= 0) {
      throw ConfigError(source, where, brief(params[i]),
                        fmt::format("a parameter not already made ready by layer {}", owner[it->second]));
    }
    owner[it->second] = layer_no;
    l.params.push_back(it->second);
  }
  f.finish();
  return l;
}

}  // namespace

Workload parse_workload(const nlohmann::json& j, const std::string& source) {
  JsonFields top(j, source, "");
  Workload w;
  w.source = source;
  w.name = top.string("name");
  w.description = top.optional_string("description").value_or("");
  w.batch_per_gpu = static_cast<int>(top.optional_integer("batch_per_gpu", 1, 1 << 24).value_or(1));
  w.measured_on = top.optional_string("measured_on").value_or("");
  if (const auto* c = top.optional("compute")) {
    JsonFields cf(*c, source, top.pointer("compute"));
    w.precision = cf.choice("precision", {"fp32", "tf32", "fp16", "bf16"});
    if (cf.has("efficiency")) {
      w.efficiency = cf.number("efficiency", 1e-3, 1.0);
      w.efficiency_given = true;
    }
    cf.finish();
  }
  std::map<std::string, std::size_t, std::less<>> index;
  const nlohmann::json& params = top.array("parameters");
  if (params.empty()) top.fail("parameters", "[]", "at least one parameter");
  for (std::size_t i = 0; i < params.size(); ++i) {
    w.parameters.push_back(read_parameter(params[i], source, fmt::format("/parameters/{}", i)));
    if (!index.emplace(w.parameters.back().name, i).second) {
      throw ConfigError(source, fmt::format("/parameters/{}/name", i), w.parameters.back().name,
                        "a name not used by an earlier parameter");
    }
  }
  std::vector<int> owner(w.parameters.size(), -1);
  const nlohmann::json& layers = top.array("layers");
  if (layers.empty()) top.fail("layers", "[]", "at least one layer");
  bool timed = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    w.layers.push_back(read_layer(layers[i], source, fmt::format("/layers/{}", i), index, owner, static_cast<int>(i), timed));
  }
  for (std::size_t i = 0; i < owner.size(); ++i) {
    if (owner[i] < 0) {
      throw ConfigError(source, fmt::format("/parameters/{}", i), w.parameters[i].name,
                        "a parameter that some layer's \"params\" lists (its gradient must become ready)");
    }
  }
  if (timed && w.measured_on.empty()) {
    top.fail("measured_on", "missing", "the device the layer times were measured on (e.g. \"cpu\", \"A100\")");
  }
  if (const auto* bufs = top.optional("buffers")) {
    if (!bufs->is_array()) top.fail("buffers", brief(*bufs), "an array of {name, numel, dtype}");
    for (std::size_t i = 0; i < bufs->size(); ++i) {
      JsonFields bf((*bufs)[i], source, fmt::format("/buffers/{}", i));
      Buffer b;
      b.name = bf.string("name");
      b.numel = bf.integer("numel", 0, kMaxElements);
      b.dtype = read_dtype(bf);
      bf.finish();
      w.buffers.push_back(std::move(b));
    }
  }
  if (const auto* o = top.optional("optimizer")) {
    JsonFields of(*o, source, top.pointer("optimizer"));
    w.optimizer.time = of.optional_time("time", kMaxTaskTime);
    w.optimizer.memory_bytes_per_param = of.optional_number("memory_bytes_per_param", 0, 1e4).value_or(0);
    if (w.optimizer.time && w.optimizer.memory_bytes_per_param > 0) {
      of.fail("time", "both time and memory_bytes_per_param", "one of time or memory_bytes_per_param");
    }
    (void)of.optional_string("kind");
    of.finish();
  }
  if (const auto* t = top.optional("transformer")) w.transformer = parse_transformer_shape(*t, source, top.pointer("transformer"));
  top.finish();
  return w;
}

Workload load_workload_file(const std::string& path) { return parse_workload(read_json_file(path), path); }

std::string_view block_prefix(std::string_view name) {
  std::size_t start = 0;
  while (start < name.size()) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(start, end - start);
    if (!part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return name.substr(0, std::min(end + 1, name.size()));
    }
    start = end + 1;
  }
  return {};
}

}  // namespace collsim
