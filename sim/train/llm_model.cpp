#include "sim/train/llm_model.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/train/workload.hpp"

namespace collsim {

namespace {

struct ModelFile {
  LlmModel model;
  bool efficiency_given = false;
  std::string source;
};

// Efficiency not given is stored as 0 until a device supplies it.
LlmModel from_workload(const Workload& w, const std::string& path) {
  if (!w.transformer) {
    throw ConfigError(path, "/transformer", "(missing)",
                      "a \"transformer\" object (layers, hidden, heads, vocab, sequence, ...) for an LLM step");
  }
  LlmModel m;
  m.name = w.name;
  m.source = path;
  m.shape = *w.transformer;
  m.precision = w.precision;
  m.efficiency = w.efficiency_given ? w.efficiency : 0.0;
  m.optimizer_bytes_per_param = w.optimizer.memory_bytes_per_param;
  return m;
}

}  // namespace

LlmModel load_llm_model(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  if (doc.is_object() && doc.contains("parameters")) return from_workload(parse_workload(doc, path), path);
  JsonFields f(doc, path, "");
  LlmModel m;
  m.name = f.string("name");
  m.source = path;
  (void)f.optional_string("description");
  m.efficiency = 0.0;
  if (const auto* c = f.optional("compute")) {
    JsonFields cf(*c, path, f.pointer("compute"));
    m.precision = cf.choice("precision", {"fp16", "bf16"});
    if (cf.has("efficiency")) m.efficiency = cf.number("efficiency", 1e-3, 1.0);
    cf.finish();
  }
  if (const auto* o = f.optional("optimizer")) {
    JsonFields of(*o, path, f.pointer("optimizer"));
    m.optimizer_bytes_per_param = of.optional_number("memory_bytes_per_param", 0, 1e4).value_or(0);
    (void)of.optional_string("kind");
    of.finish();
  }
  m.shape = parse_transformer_shape(f.required("transformer"), path, f.pointer("transformer"));
  f.finish();
  return m;
}

std::optional<double> achievable_matmul_fraction(std::string_view device) {
  if (device == "A100" || device == "A100-40GB") return 271.2 / 312.0;  // one chip, one clock
  if (device == "H100") return 794.5 / 989.0;
  return std::nullopt;
}

LlmModel with_device_efficiency(LlmModel model, const DeviceSpec& device) {
  if (model.precision != "bf16" && model.precision != "fp16") {
    throw ConfigError(model.source, "/compute/precision", model.precision, "bf16 or fp16 for an LLM step");
  }
  if (model.efficiency > 0) return model;
  const auto fraction = achievable_matmul_fraction(device.name);
  if (!fraction) {
    throw ConfigError(model.source, "/compute/efficiency", "(missing)",
                      fmt::format("a GEMM efficiency (fraction of peak), since collsim has no published matmul "
                                  "figure for {}",
                                  device.name));
  }
  model.efficiency = *fraction;
  return model;
}

}  // namespace collsim
