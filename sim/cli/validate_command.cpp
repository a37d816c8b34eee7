// `collsim validate`: predicts every measured case and compares; `--calibrate` fits
// per-link-class efficiency and latency and writes a calibration file.
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/nccl_options.hpp"
#include "sim/cli/validators.hpp"
#include "sim/coll/link_class.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/core/error.hpp"
#include "sim/measure/bucket_choice.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/measure/ddp_prediction.hpp"
#include "sim/coll/selection.hpp"
#include "sim/measure/calibration_fit.hpp"
#include "sim/measure/validation.hpp"
#include "sim/report/validation_table.hpp"

namespace collsim::cli {

namespace {

struct ValidateArgs {
  std::vector<std::string> measured;
  std::string topology;
  std::string workload;
  std::string algo = "auto";
  std::string protocol = "auto";
  double tolerance = 0.10;                 // fractions: the options' percent() validator converts
  std::optional<double> median_tolerance;
  double bucket_tolerance = 0.03;
  std::string calibration;
  std::string calibrate;
  std::string format = "table";
  NcclKnobArgs nccl;
};

// "error before: median ..%, max ..%" and "error after: ..." of a fit, after `prefix`.
void print_fit_errors(const char* prefix, const FitRecord& r) {
  std::cout << fmt::format("{}error before: median {:.2f}%, max {:.2f}%\n", prefix, r.median_error_before * 100,
                           r.max_error_before * 100);
  std::cout << fmt::format("{}error after:  median {:.2f}%, max {:.2f}%\n", prefix, r.median_error_after * 100,
                           r.max_error_after * 100);
}

// The NCCL protocol constants a fit moved: per protocol its step latency by link class (the
// shift of NCCL's hwLat, the same for every algorithm) and its efficiency.
void print_protocol_fit(const ProtocolModel& m) {
  const ProtocolModel base = nccl_default_model();
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const auto pi = static_cast<std::size_t>(nccl_index(p));
    std::string line;
    for (std::size_t k = 0; k < kLinkClasses; ++k) {
      for (std::size_t r = 0; r < kNcclRows; ++r) {
        if (base.step_latency[k][r][pi] <= Time{} || m.step_latency[k][r][pi] == base.step_latency[k][r][pi]) continue;
        line += fmt::format(", {} step latency {:+.3f} us", to_string(static_cast<LinkClass>(k)),
                            (m.step_latency[k][r][pi] - base.step_latency[k][r][pi]).us());
        break;
      }
    }
    if (m.efficiency[pi] != base.efficiency[pi]) line += fmt::format(", efficiency {:.4f}", m.efficiency[pi]);
    if (!line.empty()) std::cout << fmt::format("  {}:{}\n", to_string(p), line.substr(1));
  }
}

// --calibrate: link classes from the collective records, then the DDP section from the
// DDP records with those link classes applied; writes the file and prints both fits.
void run_calibrate(const ValidateArgs& a, const MeasurementSet& all, CasePredictor& predictor, const DdpPredictor& ddp) {
  if (all.collectives.empty() && all.ddp.empty()) {
    throw ConfigError("--calibrate", "", fmt::format("{}", fmt::join(a.measured, " ")), "measured collectives or DDP runs to fit");
  }
  Calibration c;
  if (!all.collectives.empty()) c = fit_calibration(all.collectives, predictor);
  if (!all.ddp.empty()) {
    predictor.set_calibration(c);
    c.ddp = fit_ddp_calibration(all.ddp, predictor, ddp, a.workload);
  }
  c.fitted_from = a.measured;
  write_calibration_file(a.calibrate, c, "--calibrate");
  if (!all.collectives.empty()) {
    std::cout << fmt::format("calibrated from {} collective measurements -> {}\n", c.cases, a.calibrate);
    for (const auto& [kind, lc] : c.links) {
      std::cout << fmt::format("  {}: efficiency {:.4f}{}\n", to_string(kind), lc.efficiency,
                               lc.latency ? ", latency " + to_string(*lc.latency) : std::string());
    }
    if (c.protocol) print_protocol_fit(*c.protocol);
    print_fit_errors("", c);
  }
  if (c.ddp) {
    const DdpCalibration& d = *c.ddp;
    std::cout << fmt::format("calibrated from {} DDP runs -> {}\n", d.cases, a.calibrate);
    std::cout << fmt::format("  compute slowdown while communicating: {:.4f} (compute at {:.1f}% speed)\n", d.comm_slowdown,
                             100.0 / (1.0 + d.comm_slowdown));
    print_fit_errors("DDP ", d);
  }
}

void run_validate(const ValidateArgs& a, ReportOutput& output) {
  const OutputFormat format = parse_format_option(a.format);
  ValidationReport report;
  report.tolerance = a.tolerance;
  report.median_tolerance = a.median_tolerance;
  report.bucket_tolerance = a.bucket_tolerance;
  if (!a.calibration.empty() && !a.calibrate.empty()) {
    throw ConfigError("--calibration", "", a.calibration, "either --calibration (apply) or --calibrate (fit), not both");
  }
  MeasurementSet all;
  for (const auto& path : a.measured) {
    MeasurementSet s = load_measurements(path);
    all.collectives.insert(all.collectives.end(), s.collectives.begin(), s.collectives.end());
    all.ddp.insert(all.ddp.end(), s.ddp.begin(), s.ddp.end());
  }
  std::string algo = a.algo, protocol = a.protocol;
  const NcclEnv env = resolve_nccl_knobs(a.nccl, algo, protocol);
  CasePredictor predictor(a.topology, algo, protocol);
  predictor.set_nccl_env(env);
  // DDP records: the DDP replay with each record's workload (or --workload), on its
  // topology, with --algo/--protocol resolved for the record's backend (nccl: NCCL's
  // choice per bucket on GPU ranks; gloo: the ring under the ideal protocol).
  // The calibration in force (applied, or being fitted) prices the buckets' collectives too.
  const DdpPredictor ddp = [algo, protocol, &predictor, env](const DdpMeasurement& m, const Topology& t,
                                                             const std::string& workload, double slowdown) {
    const CommSpec comm{algo, protocol, calibrated_protocol_model(predictor.calibration(), env)};
    return predict_ddp_measurement(m, t, workload, comm, slowdown);
  };
  if (!a.calibrate.empty()) {
    run_calibrate(a, all, predictor, ddp);
    return;
  }
  if (!a.calibration.empty()) {
    predictor.set_calibration(load_calibration_file(a.calibration));
  }
  report.rows = validate(all, predictor, ddp, a.workload);
  report.summary = summarize(report.rows);
  if (!all.collectives.empty() && !all.ddp.empty()) {
    for (const char* kind : {"collective", "ddp"}) {
      std::vector<ValidationRow> some;
      for (const auto& r : report.rows) {
        if (r.kind == kind) some.push_back(r);
      }
      report.by_kind.emplace_back(kind, summarize(some));
    }
  }
  report.bucket_choices = judge_bucket_choices(report.rows, report.bucket_tolerance);
  for (const auto& r : report.rows) {
    const auto e = r.error();
    if (e && std::abs(*e) > *report.tolerance) ++report.rows_beyond_tolerance;
  }
  output.put(format, validation_report_views(report));
  std::cout.flush();
  if (report.rows_beyond_tolerance > 0) {
    throw CommandFailed(fmt::format("validate: {} of {} predicted rows beyond the {:g}% tolerance", report.rows_beyond_tolerance,
                                    report.summary.predicted, *report.tolerance * 100));
  }
  if (report.median_tolerance && report.summary.median_abs_error > *report.median_tolerance) {
    throw CommandFailed(fmt::format("validate: median |error| {:.2f}% beyond the {:g}% median tolerance",
                                    report.summary.median_abs_error * 100, *report.median_tolerance * 100));
  }
  int broken = 0;
  for (const auto& c : report.bucket_choices) broken += c.judged && !c.ok ? 1 : 0;
  if (broken > 0) {
    throw CommandFailed(fmt::format("validate: the predicted best bucket_cap_mb is off by more than {:g}% in {} of {} DDP groups",
                                    report.bucket_tolerance * 100, broken, report.bucket_choices.size()));
  }
}

}  // namespace

void add_validate_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Compare predictions with measurements (collsim-exec/DDP JSON lines, nccl-tests logs)");
  cmd->add_option("--measured", args->measured, "Measurement files (JSON lines or nccl-tests logs)")->required()->expected(1, -1);
  cmd->add_option("--topology", args->topology, "Topology for records that do not name one");
  cmd->add_option("--workload", args->workload, "Workload for DDP records that embed none (file or shipped name)");
  cmd->add_option("--algo", args->algo,
                  "Algorithm for records that do not name one (nccl-tests logs, DDP records): a name, a list or auto "
                  "(NCCL's choice; DDP records with the gloo backend: ring)")
      ->capture_default_str();
  cmd->add_option("--protocol", args->protocol,
                  "Protocol for records that do not name an algorithm (nccl-tests logs): ideal, ll, ll128, simple, a list "
                  "or auto; records that name one (collsim-exec) run it with ideal")
      ->capture_default_str();
  cmd->add_option("--tolerance", args->tolerance, "Largest |error| allowed per row; exit 1 beyond it")
      ->transform(percent())
      ->default_str("10%");
  cmd->add_option("--median-tolerance", args->median_tolerance, "Largest median |error| allowed; exit 1 beyond it")
      ->transform(percent());
  cmd->add_option("--bucket-tolerance", args->bucket_tolerance,
                  "DDP: the predicted best bucket_cap_mb may be this much slower (measured) than the best; exit 1 beyond")
      ->transform(percent())
      ->default_str("3%");
  cmd->add_option("--calibration", args->calibration, "Apply a calibration file before predicting");
  add_nccl_knob_options(cmd, args->nccl);
  cmd->add_option("--calibrate", args->calibrate, "Fit a calibration from these measurements and write it to FILE");
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->callback([args, &output] { run_validate(*args, output); });
}

}  // namespace collsim::cli
