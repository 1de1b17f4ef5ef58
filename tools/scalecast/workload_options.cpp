#include "tools/scalecast/workload_options.h"

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/quantity_parse.h"

namespace scalecast::cli {

namespace {
constexpr double kMaxSolverTime_s = 86400;  // the integer program's time per strategy: a day at most
}

void add_workload_options(po::options_description& options) {
  options.add_options()
      ("batch", po::value<int>(), "per-worker batch (default: the workload's batch_per_gpu)")
      ("precision", po::value<std::string>(), "training precision fp32, tf32, fp16, bf16 or fp8 (default: the workload's); activations follow it")
      ("cost-model", po::value<std::string>(), "cost-model YAML file adding or overriding GPU families and reference GPUs (workloads/SCHEMA.md)")
      ("global-batch", po::value<int>(),
       "samples per step over all replicas: tp/pp strategies split it into microbatches (default: the "
       "workload's global_batch); dp accumulates global / (batch x GPUs) batches per GPU per step (default: none)")
      ("bucket", po::value<std::string>()->default_value("25MiB"), "gradient bucket size (DDP's bucket_cap_mb)")
      ("ddp", po::value<std::string>()->default_value("torch"),
       "the wrapper reducing dp and hybrid:M gradients: torch (PyTorch's DistributedDataParallel, --bucket) | "
       "apex[:N[:predivide]] (apex's DistributedDataParallel: buckets of N elements, default 10000000; predivide: "
       "gradient_predivide_factor = world size); tp/pp strategies reduce as Megatron-LM does")
      ("zero-gradients", po::bool_switch(), "make the gradients 0 bytes (isolates the allreduces' cost)")
      ("solver-time-limit", po::value<double>()->default_value(PlacementOptions{}.solver_time_limit_s),
       "seconds the placement's integer program may run per strategy");
}

ModelGraph load_workload(const po::variables_map& values) {
  ModelGraph model = load_model_graph(values["workload"].as<std::string>());
  if (values.count("batch")) {
    const int batch = values["batch"].as<int>();
    if (batch < 1 || batch > kMaxBatchPerGpu)
      throw InputError("command line", "--batch",
                       "must be between 1 and " + std::to_string(kMaxBatchPerGpu) + ", got " + std::to_string(batch));
    model.batch_per_gpu = batch;
  }
  if (values.count("precision")) model = at_precision(std::move(model), values["precision"].as<std::string>());
  return model;
}

CostModelTable cost_model_table(const po::variables_map& values) {
  return load_cost_model_table(values.count("cost-model") ? values["cost-model"].as<std::string>() : "");
}

void check_trace_options(const po::variables_map& values) {
  if (values.count("precision"))
    throw InputError("command line", "--precision",
                     "applies to --workload only: a trace's kernels carry their own precisions (traces/FORMAT.md)");
  for (const char* option : {"bucket", "ddp"})
    if (!values[option].defaulted())
      throw InputError("command line", std::string("--") + option,
                       "applies to --workload only: a trace replays the allreduces it recorded (traces/FORMAT.md)");
}

void check_ddp_applies(const po::variables_map& values, const StrategySpec& strategy) {
  if (strategy.is_tensor_pipeline() && !values["ddp"].defaulted())
    throw InputError("command line", "--ddp",
                     "applies to dp and hybrid:M; " + strategy.name() +
                         " reduces its gradients as Megatron-LM's DDP does (docs/parallelism.md)");
}

std::optional<int> global_batch_option(const po::variables_map& values) {
  if (!values.count("global-batch")) return std::nullopt;
  const int batch = values["global-batch"].as<int>();
  if (batch < 1) throw InputError("command line", "--global-batch", "must be at least 1, got " + std::to_string(batch));
  return batch;
}

HybridOptions hybrid_options(const po::variables_map& values) {
  HybridOptions options;
  auto bucket = parse_bytes_with_unit(values["bucket"].as<std::string>());
  if (!bucket || *bucket <= 0)
    throw InputError("command line", "--bucket",
                     "expected a positive size with its unit such as 25MiB, got '" + values["bucket"].as<std::string>() + "'");
  if (!limits::within(*bucket, limits::kBytes))
    throw InputError("command line", "--bucket", limits::out_of_range(limits::kBytes, values["bucket"].as<std::string>()));
  options.bucket_bytes = *bucket;
  const std::string ddp = values["ddp"].as<std::string>();
  const auto wrapper = parse_ddp_wrapper(ddp);
  if (!wrapper)
    throw InputError("command line", "--ddp",
                     std::string("expected ") + kDdpWrapperForms + " (N: elements per bucket, 1 to 1e15), got '" + ddp + "'");
  if (wrapper->kind == DdpWrapper::Kind::apex && !values["bucket"].defaulted())
    throw InputError("command line", "--bucket",
                     "sets PyTorch DDP's bucket_cap_mb; apex sizes its buckets in elements: --ddp apex:N");
  options.ddp = *wrapper;
  if (values["zero-gradients"].as<bool>()) options.gradient_bytes_scale = 0;
  const double limit_s = values["solver-time-limit"].as<double>();
  if (!(limit_s >= 0 && limit_s <= kMaxSolverTime_s))
    throw InputError("command line", "--solver-time-limit", "must be between 0 and 86400 seconds (a day)");
  options.placement.solver_time_limit_s = limit_s;
  return options;
}

}  // namespace scalecast::cli
