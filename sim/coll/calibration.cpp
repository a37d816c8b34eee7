#include "sim/coll/calibration.hpp"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/coll/protocol_calibration.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/version.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

double round4(double v) { return std::round(v * 1e4) / 1e4; }

void read_fit_record(JsonFields& f, FitRecord& r) {
  r.cases = static_cast<int>(f.optional_integer("cases", 0, INT32_MAX).value_or(0));
  r.median_error_before = f.optional_number("median_error_before", 0, 1e9).value_or(0);
  r.median_error_after = f.optional_number("median_error_after", 0, 1e9).value_or(0);
  r.max_error_before = f.optional_number("max_error_before", 0, 1e9).value_or(0);
  r.max_error_after = f.optional_number("max_error_after", 0, 1e9).value_or(0);
}

void write_fit_record(nlohmann::ordered_json& j, const FitRecord& r) {
  j["cases"] = r.cases;
  j["median_error_before"] = round4(r.median_error_before);
  j["median_error_after"] = round4(r.median_error_after);
  j["max_error_before"] = round4(r.max_error_before);
  j["max_error_after"] = round4(r.max_error_after);
}

}  // namespace

ProtocolModel calibrated_protocol_model(const std::optional<Calibration>& c, const NcclEnv& knobs) {
  ProtocolModel m = c && c->protocol ? *c->protocol : nccl_default_model();
  apply_nccl_env(knobs, m);
  return m;
}

void apply_calibration(Topology& t, const Calibration& c) {
  for (DirectedLink& l : t.links) {
    const auto it = c.links.find(l.kind);
    if (it == c.links.end()) continue;
    l.bandwidth = l.bandwidth * it->second.efficiency;
    if (it->second.latency) l.latency = *it->second.latency;
  }
}

Calibration parse_calibration(const nlohmann::json& doc, const std::string& path) {
  JsonFields top(doc, path, "");
  Calibration c;
  if (const auto kind = top.optional_string("kind"); kind && *kind != "collsim-calibration") {
    top.fail("kind", in_quotes(*kind), "\"collsim-calibration\" (or no kind)");
  }
  ProtocolModel protocol = nccl_default_model();
  protocol.source = path;
  if (read_protocol_calibration(top, protocol)) c.protocol = protocol;
  const nlohmann::json* links_ptr = top.optional("links");
  static const nlohmann::json kNoLinks = nlohmann::json::object();
  const nlohmann::json& links = links_ptr ? *links_ptr : kNoLinks;
  if (!links.is_object() || (links_ptr && links.empty())) {
    top.fail("links", brief(links), "an object of link classes, like {\"ethernet\": {...}}");
  }
  for (const auto& [name, value] : links.items()) {
    const auto kind = enum_from<LinkKind>(name);
    if (!kind) {
      throw ConfigError(path, top.pointer("links") + "/" + pointer_token(name), in_quotes(name),
                        fmt::format("a link class: {}", fmt::join(enum_names<LinkKind>(), ", ")));
    }
    JsonFields f(value, path, top.pointer("links") + "/" + pointer_token(name));
    LinkClassCalibration lc;
    lc.efficiency = f.number("efficiency", 0.01, 10.0);
    if (f.has("latency")) lc.latency = f.time("latency", kMaxLatency);
    f.finish();
    c.links[*kind] = lc;
  }
  (void)top.optional_string(kVersionKey);  // which collsim wrote the file: informative only
  if (const auto* from = top.optional("fitted_from"); from && from->is_array()) {
    for (const auto& s : *from) c.fitted_from.push_back(s.is_string() ? s.get<std::string>() : brief(s));
  }
  read_fit_record(top, c);
  if (const auto* ddp = top.optional("ddp")) {
    JsonFields f(*ddp, path, top.pointer("ddp"));
    DdpCalibration d;
    d.comm_slowdown = f.number("comm_slowdown", 0, 100);
    read_fit_record(f, d);
    f.finish();
    c.ddp = d;
  }
  top.finish();  // unknown keys first: a misspelt key is the likelier mistake
  if (!links_ptr && !c.protocol && !c.ddp) {
    top.fail("links", "missing",
             "link classes (\"links\": {\"ethernet\": {...}}), protocol-model keys (base_latency, ...) "
             "or a DDP section (\"ddp\": {\"comm_slowdown\": ...})");
  }
  return c;
}

Calibration load_calibration_file(const std::string& path) { return parse_calibration(read_json_file(path), path); }

void write_calibration_file(const std::string& path, const Calibration& c, const std::string& option) {
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["kind"] = "collsim-calibration";
  nlohmann::ordered_json links = nlohmann::ordered_json::object();
  for (const auto& [kind, lc] : c.links) {
    nlohmann::ordered_json l;
    l["efficiency"] = std::round(lc.efficiency * 1e6) / 1e6;
    if (lc.latency) l["latency"] = calibration_time_text(*lc.latency);
    links[std::string(to_string(kind))] = l;
  }
  if (!links.empty()) doc["links"] = links;
  if (c.protocol) {
    const nlohmann::ordered_json constants = protocol_calibration_json(*c.protocol, nccl_default_model());
    for (const auto& [key, value] : constants.items()) doc[key] = value;
  }
  if (c.ddp) {
    nlohmann::ordered_json d;
    d["comm_slowdown"] = round4(c.ddp->comm_slowdown);
    write_fit_record(d, *c.ddp);
    doc["ddp"] = d;
  }
  doc["fitted_from"] = c.fitted_from;
  if (!links.empty() || c.protocol) write_fit_record(doc, c);
  write_file_atomically(path, doc.dump(2) + "\n", option);
}

}  // namespace collsim
