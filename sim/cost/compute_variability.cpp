#include "sim/cost/compute_variability.h"

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "sim/cost/kernel_class.h"

namespace scalecast {

double inverse_normal_cdf(double p) {
  // Acklam's rational approximation (relative error < 1.2e-9), then one Halley step on
  // erfc, which brings it to double precision.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double expected_straggler_delay(const ComputeVariability& variability, int ranks) {
  if (ranks <= 1 || variability.cv <= 0) return 0;
  std::mt19937_64 generator(variability.seed);
  double sum = 0;
  for (int draw = 0; draw < kStragglerDraws; ++draw) {
    // U in (0, 1) from 53 random bits; the maximum of N normals is Phi^-1(U^(1/N)), taken as
    // -Phi^-1(1 - U^(1/N)) so that its upper tail keeps its precision.
    const double u = (static_cast<double>(generator() >> 11) + 0.5) * 0x1.0p-53;
    const double tail = -std::expm1(std::log(u) / ranks);
    sum += -inverse_normal_cdf(tail);
  }
  return std::max(0.0, variability.cv * sum / kStragglerDraws);
}

namespace {

// A GPU task whose time the GPU's speed sets: what varies with the GPU from step to step.
bool is_measured_gpu_work(const Task& task) {
  return task.kind == TaskKind::compute && !is_host_task(task) && task.duration_s >= 0 &&
         scaling_bound(task.op_kind) != ScalingBound::kept;
}

}  // namespace

std::optional<double> trace_compute_cv(const ExecutionGraph& graph) {
  double cv_sum = 0;
  int programs = 0;
  for (const RankProgram& program : graph.programs) {
    std::map<int, double> per_step;
    for (const Task& task : program.tasks)
      if (task.step >= 0 && is_measured_gpu_work(task)) per_step[task.step] += task.duration_s;
    if (per_step.size() < 3) continue;  // warm-up + two steady steps
    std::vector<double> steady;
    for (auto it = std::next(per_step.begin()); it != per_step.end(); ++it) steady.push_back(it->second);
    double mean = 0;
    for (double s : steady) mean += s;
    mean /= steady.size();
    double square_sum = 0;
    for (double s : steady) square_sum += (s - mean) * (s - mean);
    if (mean <= 0) continue;
    cv_sum += std::sqrt(square_sum / (steady.size() - 1)) / mean;
    ++programs;
  }
  if (programs == 0) return std::nullopt;
  return cv_sum / programs;
}

}  // namespace scalecast
