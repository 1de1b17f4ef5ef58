#include "sim/report/validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/preset_paths.h"
#include "sim/core/quantity_parse.h"
#include "sim/core/yaml_input.h"

namespace scalecast {

using yaml::Field;
using yaml::MapReader;

namespace {

const std::vector<std::string> kCommonFields = {"name",      "kind",           "measured", "source", "tolerance",
                                                "known_gap", "accepted_error", "bound"};

double read_fraction(const Field& field) {
  const double value = yaml::read_number(field);
  if (!(value > 0 && value < 10)) field.fail("expected a fraction such as 0.05 (5%), got " + field.kind());
  return value;
}

ValidationCase read_case(const Field& entry) {
  if (!entry.node().IsMap()) entry.fail("expected a mapping (name, kind, measured, source, ...)");
  const YAML::Node kind_node = entry.node()["kind"];
  if (!kind_node || !kind_node.IsScalar()) entry.missing_child("kind").fail("missing required field");
  std::vector<std::string> kinds;
  for (const ValidationKind& k : validation_kinds()) kinds.push_back(k.name);
  const ValidationKind* kind = nullptr;
  for (const ValidationKind& k : validation_kinds())
    if (k.name == kind_node.Scalar()) kind = &k;
  if (!kind) Field(kind_node, entry.source(), entry.path() + ".kind").fail("unknown kind; expected one of: " + yaml::join_words(kinds));

  std::vector<std::string> allowed = kCommonFields;
  allowed.insert(allowed.end(), kind->required.begin(), kind->required.end());
  allowed.insert(allowed.end(), kind->optional.begin(), kind->optional.end());
  const MapReader fields(entry, allowed);
  ValidationCase c;
  c.file = entry.source();
  c.field = entry.path();
  c.name = yaml::read_name(fields.required("name"));
  c.kind = kind->name;
  c.measured = yaml::read_number(fields.required("measured"));
  if (!(c.measured > 0)) fields.required("measured").fail("must be positive");
  c.source = yaml::read_name(fields.required("source"));
  if (auto t = fields.optional("tolerance")) c.tolerance = read_fraction(*t);
  if (auto bound = fields.optional("bound")) {
    if (yaml::read_scalar(*bound) != "lower") bound->fail("expected lower (the measurement is a floor), got '" + yaml::read_scalar(*bound) + "'");
    c.lower_bound = true;
  }
  if (auto gap = fields.optional("known_gap")) c.known_gap = yaml::read_name(*gap);
  if (auto accepted = fields.optional("accepted_error")) c.accepted_error = read_fraction(*accepted);
  if (c.known_gap.empty() != !c.accepted_error)
    entry.fail("known_gap and accepted_error go together: a gap says why, and how large an error is accepted meanwhile");
  for (const std::string& key : kind->required) c.parameters[key] = yaml::read_scalar(fields.required(key));
  for (const std::string& key : kind->optional)
    if (auto value = fields.optional(key)) c.parameters[key] = yaml::read_scalar(*value);
  return c;
}

}  // namespace

std::optional<std::string> ValidationCase::optional_text(const std::string& key) const {
  auto it = parameters.find(key);
  if (it == parameters.end()) return std::nullopt;
  return it->second;
}

std::string ValidationCase::text(const std::string& key) const {
  auto value = optional_text(key);
  if (!value) throw InputError(file, field + "." + key, "missing required field");
  return *value;
}

double ValidationCase::bytes(const std::string& key) const {
  const auto value = parse_bytes(text(key));
  if (!value || !(*value > 0)) throw InputError(file, field + "." + key, "expected a size such as 64MB, got '" + text(key) + "'");
  return *value;
}

int ValidationCase::integer(const std::string& key) const {
  const std::string value = text(key);
  size_t used = 0;
  int number = 0;
  try {
    number = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || number < 1) throw InputError(file, field + "." + key, "expected a positive integer, got '" + value + "'");
  return number;
}

const ValidationKind& validation_kind(const std::string& name) {
  for (const ValidationKind& kind : validation_kinds())
    if (kind.name == name) return kind;
  throw std::logic_error("no validation kind '" + name + "'");
}

double simulate_case(const ValidationCase& c) {
  try {
    return validation_kind(c.kind).simulate(c);
  } catch (const RequestError& error) {
    const std::string& parameter = error.parameter();
    const std::string key = parameter == "algorithm" ? "algo" : parameter == "protocol" ? "proto" : parameter;
    if (c.optional_text(key)) throw InputError(c.file, c.field + "." + key, error.problem());
    throw InputError(c.file, c.field, parameter + ": " + error.problem());
  }
}

std::vector<ValidationCase> parse_validation_cases(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = yaml::load_yaml(yaml_text, source);
  const Field top(root, source, "");
  const MapReader document(top, {"cases"});
  std::vector<ValidationCase> cases;
  for (const Field& entry : document.required("cases").items()) {
    cases.push_back(read_case(entry));
    for (size_t i = 0; i + 1 < cases.size(); ++i)
      if (cases[i].name == cases.back().name) entry.fail("a case named '" + cases.back().name + "' exists already");
  }
  return cases;
}

std::vector<ValidationCase> load_validation_cases(const std::string& path) {
  const std::string file = path.empty() ? source_tree_path("tests/validation/cases.yaml") : path;
  return parse_validation_cases(yaml::read_text_file(file, "a validation cases YAML file"), file);
}

namespace {

// The |error| a case is judged by: a floor counts only the shortfall below it.
double counted_error(const ValidationCase& c, double error) {
  return std::abs(c.lower_bound ? std::min(0.0, error) : error);
}

}  // namespace

ValidationResult judge(const ValidationCase& c, double simulated) {
  ValidationResult result;
  result.simulated = simulated;
  result.error = (simulated - c.measured) / c.measured;
  const double counted = counted_error(c, result.error);
  result.within_tolerance = counted <= c.tolerance;
  result.within_accepted = result.within_tolerance || (c.accepted_error && counted <= *c.accepted_error);
  return result;
}

std::string stale_gap_bookkeeping(const ValidationCase& c, const ValidationResult& result) {
  if (c.known_gap.empty() || !c.accepted_error) return "";
  if (result.within_tolerance)
    return "the model now meets the tolerance: remove known_gap and accepted_error";
  const double error = counted_error(c, result.error);
  const double loosest = error + std::max(kAcceptedErrorSlack, 0.1 * error);
  if (*c.accepted_error <= loosest) return "";
  return "accepted_error " + limits::format_number(*c.accepted_error) + " is looser than the error " + limits::format_number(error) +
         " allows (at most " + limits::format_number(loosest) + "): tighten it";
}

namespace {

// The summary over the cases at `indices` (into `cases` and `results`).
ValidationSummary summarize_indices(const std::vector<ValidationCase>& cases, const std::vector<ValidationResult>& results,
                                    const std::vector<size_t>& indices) {
  ValidationSummary summary;
  summary.cases = static_cast<int>(indices.size());
  double sum = 0;
  for (size_t i : indices) {
    const double e = std::abs(results[i].error);
    sum += e;
    if (results[i].within_tolerance) ++summary.within_tolerance;
    if (e >= summary.max_abs_error) {
      summary.max_abs_error = e;
      summary.worst_case = cases[i].name;
    }
  }
  summary.mean_abs_error = indices.empty() ? 0 : sum / indices.size();
  return summary;
}

}  // namespace

ValidationSummary summarize_validation(const std::vector<ValidationCase>& cases,
                                       const std::vector<ValidationResult>& results) {
  std::vector<size_t> all(results.size());
  std::iota(all.begin(), all.end(), 0);
  return summarize_indices(cases, results, all);
}

std::vector<std::pair<std::string, ValidationSummary>> summarize_validation_by_kind(
    const std::vector<ValidationCase>& cases, const std::vector<ValidationResult>& results) {
  std::vector<std::pair<std::string, std::vector<size_t>>> kinds;  // in order of first appearance
  for (size_t i = 0; i < cases.size(); ++i) {
    auto kind = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == cases[i].kind; });
    if (kind == kinds.end()) kind = kinds.insert(kinds.end(), {cases[i].kind, {}});
    kind->second.push_back(i);
  }
  std::vector<std::pair<std::string, ValidationSummary>> out;
  for (const auto& [kind, indices] : kinds) out.emplace_back(kind, summarize_indices(cases, results, indices));
  return out;
}

}  // namespace scalecast
