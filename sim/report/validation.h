// The fidelity table: every validation case the project holds -- a published measurement, where
// it comes from, and the scenario that predicts it -- and how far the prediction lands
// (`scalecast validate`, README "validate"). Cases are data (tests/validation/cases.yaml,
// format in tests/validation/README.md); adding one is an entry there, never code. What a case
// simulates is its kind's (validation_kinds.cpp): a replayed trace's step, a collective's
// busbw, a DP speedup, ...
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scalecast {

struct ValidationCase {
  std::string name;
  std::string kind;
  double measured = 0;      // in the kind's unit
  std::string source;       // where the measurement comes from (a citation, for the reader)
  double tolerance = 0.05;  // |error| the model is meant to meet on this case
  bool lower_bound = false;  // `bound: lower`: the measurement is a floor; only a shortfall is an error
  // A gap the model does not close yet: why, and the |error| accepted meanwhile (tests fail
  // above it, so the gap cannot silently widen).
  std::string known_gap;
  std::optional<double> accepted_error;
  std::map<std::string, std::string> parameters;  // the kind's own fields, as written
  std::string file;                               // for error messages
  std::string field;                              // "cases[3]"

  // A parameter read as text, number, size (64MB) or integer; missing or malformed ones are
  // InputErrors naming the file and field.
  std::string text(const std::string& key) const;
  std::optional<std::string> optional_text(const std::string& key) const;
  double bytes(const std::string& key) const;
  int integer(const std::string& key) const;
};

struct ValidationKind {
  std::string name;
  std::string unit;  // of `measured` and the simulated value: "s", "GB/s", "x"
  std::string what;  // one line: what is compared
  std::vector<std::string> required;
  std::vector<std::string> optional;
  // Runs the case's scenario (SimGrid, so at most once per process) and returns the predicted
  // value in `unit`.
  double (*simulate)(const ValidationCase& c);
};

const std::vector<ValidationKind>& validation_kinds();
const ValidationKind& validation_kind(const std::string& name);

// Runs the case's kind. A request the model refuses (RequestError) is the case's error: an
// InputError at the case's field behind its parameter (the library's algorithm and protocol are
// a case's algo and proto), or at the case itself when it has no such field.
double simulate_case(const ValidationCase& c);

// `path` empty: the project's own tests/validation/cases.yaml.
std::vector<ValidationCase> load_validation_cases(const std::string& path = "");
std::vector<ValidationCase> parse_validation_cases(const std::string& yaml_text, const std::string& source);

struct ValidationResult {
  double simulated = 0;
  double error = 0;  // (simulated - measured) / measured
  bool within_tolerance = false;
  bool within_accepted = false;  // tolerance, or the known gap's accepted error
};

ValidationResult judge(const ValidationCase& c, double simulated);

// A known gap must stay honest: once the model meets the case's tolerance, its `known_gap` and
// `accepted_error` are stale; and the accepted error may exceed the error by at most
// kAcceptedErrorSlack or a tenth of the error, whichever is more, so that the bound says how far
// off the model is now and a gap cannot widen unnoticed. Empty when the case's bookkeeping holds,
// else what to change in cases.yaml.
inline constexpr double kAcceptedErrorSlack = 0.03;
std::string stale_gap_bookkeeping(const ValidationCase& c, const ValidationResult& result);

struct ValidationSummary {
  int cases = 0;
  int within_tolerance = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
  std::string worst_case;
};
ValidationSummary summarize_validation(const std::vector<ValidationCase>& cases,
                                       const std::vector<ValidationResult>& results);

// The same summary for each kind of case (collective_busbw, dp_speedup, cross_generation, ...),
// kinds in the order they first appear in `cases`: where the table is strong and where it is not.
std::vector<std::pair<std::string, ValidationSummary>> summarize_validation_by_kind(
    const std::vector<ValidationCase>& cases, const std::vector<ValidationResult>& results);

}  // namespace scalecast
