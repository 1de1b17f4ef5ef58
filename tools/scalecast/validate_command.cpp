// scalecast validate: the fidelity table. Runs every validation case the project holds
// (sim/report/validation.h; tests/validation/cases.yaml), each in a process of its own, and
// prints case, measured, simulated, error and source, then the mean and max absolute error, in
// all and for each kind of case.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "sim/core/input_error.h"
#include "sim/core/process_pool.h"
#include "sim/report/validation.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/subcommands.h"

namespace scalecast::cli {

namespace {

std::vector<ValidationCase> selected_cases(const po::variables_map& values) {
  std::vector<ValidationCase> cases = load_validation_cases(values.count("cases") ? values["cases"].as<std::string>() : "");
  if (values.count("only")) {
    const std::string wanted = values["only"].as<std::string>();
    std::erase_if(cases, [&](const ValidationCase& c) { return c.name.find(wanted) == std::string::npos; });
    if (cases.empty()) throw InputError("command line", "--only", "no case name contains '" + wanted + "'");
  }
  return cases;
}

// Each case's simulated value, or the failure that stopped it (rethrown: a case that cannot
// run is a broken table, not an error to average).
std::vector<double> run_cases(const std::vector<ValidationCase>& cases, int jobs) {
  std::vector<double> simulated(cases.size());
  std::string failure;
  int failure_code = 0;
  run_in_processes(
      static_cast<int>(cases.size()), jobs,
      [&](int i) { return nlohmann::json(simulate_case(cases[i])).dump(); },
      [&](int i, const JobOutcome& outcome) {
        if (outcome.exit_code == 0) {
          simulated[i] = nlohmann::json::parse(outcome.output).get<double>();
        } else if (failure.empty()) {
          // The child's error names the cases file already; the file is named once, below.
          std::string output = outcome.output;
          if (output.starts_with(cases[i].file + ": ")) output.erase(0, cases[i].file.size() + 2);
          failure = cases[i].name + ": " + output;
          failure_code = outcome.exit_code;
        }
      });
  if (failure_code == 2) throw InputError(cases.front().file, "", failure);
  if (failure_code) throw std::runtime_error(failure);
  return simulated;
}

const char* status(const ValidationCase&, const ValidationResult& r) {
  if (r.within_tolerance) return "ok";
  return r.within_accepted ? "gap" : "FAIL";
}

nlohmann::ordered_json report_json(const std::vector<ValidationCase>& cases, const std::vector<ValidationResult>& results,
                                   const ValidationSummary& summary) {
  nlohmann::ordered_json out;
  out["cases"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const ValidationCase& c = cases[i];
    nlohmann::ordered_json row = {{"name", c.name},
                                  {"kind", c.kind},
                                  {"unit", validation_kind(c.kind).unit},
                                  {"measured", c.measured},
                                  {"simulated", results[i].simulated},
                                  {"error", results[i].error},
                                  {"tolerance", c.tolerance},
                                  {"status", status(c, results[i])},
                                  {"source", c.source}};
    if (!c.known_gap.empty()) row["known_gap"] = c.known_gap;
    out["cases"].push_back(row);
  }
  out["mean_abs_error"] = summary.mean_abs_error;
  out["max_abs_error"] = summary.max_abs_error;
  out["worst_case"] = summary.worst_case;
  out["within_tolerance"] = summary.within_tolerance;
  out["by_kind"] = nlohmann::ordered_json::object();
  for (const auto& [kind, s] : summarize_validation_by_kind(cases, results))
    out["by_kind"][kind] = {{"cases", s.cases},
                            {"within_tolerance", s.within_tolerance},
                            {"mean_abs_error", s.mean_abs_error},
                            {"max_abs_error", s.max_abs_error},
                            {"worst_case", s.worst_case}};
  return out;
}

void print_report(const std::vector<ValidationCase>& cases, const std::vector<ValidationResult>& results,
                  const ValidationSummary& summary) {
  std::printf("%-34s %12s %12s %6s %8s %5s  %s\n", "case", "measured", "simulated", "unit", "error", "", "source");
  for (size_t i = 0; i < cases.size(); ++i) {
    const ValidationCase& c = cases[i];
    std::printf("%-34s %12.5g %12.5g %6s %+7.1f%% %5s  %s\n", c.name.c_str(), c.measured, results[i].simulated,
                validation_kind(c.kind).unit.c_str(), results[i].error * 100, status(c, results[i]), c.source.c_str());
  }
  std::printf("\n%d cases, %d within their tolerance; mean |error| %.1f%%, max |error| %.1f%% (%s)\n", summary.cases,
              summary.within_tolerance, summary.mean_abs_error * 100, summary.max_abs_error * 100,
              summary.worst_case.c_str());
  for (const auto& [kind, s] : summarize_validation_by_kind(cases, results))
    std::printf("  %-22s %4d cases, %4d within; mean |error| %5.1f%%, max %5.1f%%\n", kind.c_str(), s.cases,
                s.within_tolerance, s.mean_abs_error * 100, s.max_abs_error * 100);
  for (size_t i = 0; i < cases.size(); ++i)
    if (!results[i].within_tolerance && !cases[i].known_gap.empty())
      std::printf("gap %s: %s\n", cases[i].name.c_str(), cases[i].known_gap.c_str());
}

}  // namespace

int run_validate(const std::vector<std::string>& args) {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  po::options_description options("validate options");
  options.add_options()
      ("only", po::value<std::string>(), "run only the cases whose name contains this text")
      ("cases", po::value<std::string>(), "a cases YAML file (default: the project's tests/validation/cases.yaml)")
      ("jobs", po::value<int>()->default_value(cores), "cases simulated at once (processes)")
      ("json", po::bool_switch(), "print one JSON object");
  po::variables_map values;
  if (!parse_options("validate", "[--only TEXT] [--json]", args, options, values)) return 0;
  const int jobs = values["jobs"].as<int>();
  if (jobs < 1) throw InputError("command line", "--jobs", "must be at least 1");
  const std::vector<ValidationCase> cases = selected_cases(values);
  const std::vector<double> simulated = run_cases(cases, jobs);
  std::vector<ValidationResult> results;
  for (size_t i = 0; i < cases.size(); ++i) results.push_back(judge(cases[i], simulated[i]));
  const ValidationSummary summary = summarize_validation(cases, results);
  if (values["json"].as<bool>())
    std::cout << report_json(cases, results, summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    print_report(cases, results, summary);
  return 0;
}

}  // namespace scalecast::cli
