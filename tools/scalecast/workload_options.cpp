#include "tools/scalecast/workload_options.h"

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"

namespace scalecast::cli {

void add_workload_options(po::options_description& options) {
  options.add_options()
      ("batch", po::value<int>(), "per-worker batch (default: the workload's batch_per_gpu)")
      ("bucket", po::value<std::string>()->default_value("25MiB"), "gradient bucket size (DDP's bucket_cap_mb)")
      ("zero-gradients", po::bool_switch(), "make the gradients 0 bytes (isolates the allreduces' cost)")
      ("solver-time-limit", po::value<double>()->default_value(PlacementOptions{}.solver_time_limit_s),
       "seconds the placement's integer program may run per strategy");
}

ModelGraph load_workload(const po::variables_map& values) {
  ModelGraph model = load_model_graph(values["workload"].as<std::string>());
  if (values.count("batch")) {
    const int batch = values["batch"].as<int>();
    if (batch < 1) throw InputError("command line", "--batch", "must be at least 1, got " + std::to_string(batch));
    model.batch_per_gpu = batch;
  }
  return model;
}

HybridOptions hybrid_options(const po::variables_map& values) {
  HybridOptions options;
  auto bucket = parse_bytes_with_unit(values["bucket"].as<std::string>());
  if (!bucket || *bucket <= 0)
    throw InputError("command line", "--bucket",
                     "expected a positive size with its unit such as 25MiB, got '" + values["bucket"].as<std::string>() + "'");
  options.bucket_bytes = *bucket;
  if (values["zero-gradients"].as<bool>()) options.gradient_bytes_scale = 0;
  const double limit_s = values["solver-time-limit"].as<double>();
  if (!(limit_s >= 0)) throw InputError("command line", "--solver-time-limit", "must be >= 0 seconds");
  options.placement.solver_time_limit_s = limit_s;
  return options;
}

}  // namespace scalecast::cli
