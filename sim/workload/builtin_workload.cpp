#include "sim/workload/builtin_workload.h"

#include <vector>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

constexpr double kBytesPerValue = 4;  // fp32 activations, weights and gradients

struct Layer {
  std::string name;
  std::string op_kind;
  double flops_per_sample = 0;
  double activation_bytes_per_sample = 0;  // output
  double parameter_bytes = 0;
};

struct ResNetBuilder {
  std::vector<Layer> layers;
  int channels = 3;
  int size = 224;

  void conv(const std::string& name, int out_channels, int kernel, int stride) {
    int out_size = (size + stride - 1) / stride;
    double macs = double(channels) * out_channels * kernel * kernel * out_size * out_size;
    double out_values = double(out_channels) * out_size * out_size;
    layers.push_back({name, "conv", 2 * macs, out_values * kBytesPerValue,
                      double(channels) * out_channels * kernel * kernel * kBytesPerValue});
    // Batch norm + ReLU: memory-bound, a few FLOPs per value, 2 parameters per channel.
    layers.push_back({name + ".bn_relu", "elementwise", 6 * out_values, out_values * kBytesPerValue,
                      2.0 * out_channels * kBytesPerValue});
    channels = out_channels;
    size = out_size;
  }
};

std::vector<Layer> resnet50_layers() {
  ResNetBuilder b;
  b.conv("conv1", 64, 7, 2);
  b.size = (b.size + 1) / 2;  // max pool
  const int blocks[] = {3, 4, 6, 3};
  const int widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage)
    for (int block = 0; block < blocks[stage]; ++block) {
      std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      int stride = (stage > 0 && block == 0) ? 2 : 1;
      int in_channels = b.channels, in_size = b.size;
      b.conv(prefix + ".conv1", widths[stage], 1, 1);
      b.conv(prefix + ".conv2", widths[stage], 3, stride);
      b.conv(prefix + ".conv3", widths[stage] * 4, 1, 1);
      if (block == 0) {  // projection shortcut, from the block's input
        int keep_channels = b.channels, keep_size = b.size;
        b.channels = in_channels;
        b.size = in_size;
        b.conv(prefix + ".downsample", widths[stage] * 4, 1, stride);
        b.channels = keep_channels;
        b.size = keep_size;
      }
    }
  const double features = b.channels;
  b.layers.push_back({"avgpool", "elementwise", features * b.size * b.size, features * kBytesPerValue, 0});
  b.layers.push_back({"fc", "matmul", 2 * features * 1000, 1000 * kBytesPerValue, (features * 1000 + 1000) * kBytesPerValue});
  return b.layers;
}

Task compute_task(const std::string& name, const std::string& op_kind, double flops, double bytes, int step) {
  Task t;
  t.kind = TaskKind::compute;
  t.name = name;
  t.op_kind = op_kind;
  t.duration_s = -1;  // priced by the cost model on the simulated GPU
  t.flops = flops;
  t.memory_bytes = bytes;
  t.stream = 0;
  t.step = step;
  return t;
}

}  // namespace

bool is_builtin_workload(const std::string& name) { return name == "resnet50"; }

ExecutionGraph builtin_workload(const std::string& name, const BuiltinWorkloadOptions& options) {
  if (!is_builtin_workload(name))
    throw InputError("command line", "--workload", "unknown built-in workload '" + name + "'; known: resnet50");
  if (options.batch_per_gpu < 1) throw InputError("command line", "--batch", "must be at least 1");
  if (options.bucket_bytes <= 0) throw InputError("command line", "--bucket", "must be positive");
  const double batch = options.batch_per_gpu;
  const auto layers = resnet50_layers();

  RankProgram program;
  auto& tasks = program.tasks;
  double input_bytes = 3.0 * 224 * 224 * kBytesPerValue;
  for (const Layer& layer : layers) {
    tasks.push_back(compute_task(layer.name, layer.op_kind, layer.flops_per_sample * batch,
                                 (input_bytes + layer.activation_bytes_per_sample) * batch + layer.parameter_bytes, 0));
    input_bytes = layer.activation_bytes_per_sample;
  }
  tasks.push_back(compute_task("loss", "elementwise", 5000 * batch, 8000 * batch, 0));

  // Backward in reverse; gradients fill buckets in the order they are produced (as DDP does).
  std::vector<int> bucket_ends;
  std::vector<double> bucket_sizes;
  double bucket = 0;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    tasks.push_back(compute_task(it->name + ".backward", it->op_kind, 2 * it->flops_per_sample * batch,
                                 3 * it->activation_bytes_per_sample * batch + 2 * it->parameter_bytes, 0));
    bucket += it->parameter_bytes;
    if (bucket >= options.bucket_bytes) {
      bucket_ends.push_back(static_cast<int>(tasks.size()) - 1);
      bucket_sizes.push_back(bucket);
      bucket = 0;
    }
  }
  if (bucket > 0) {
    bucket_ends.push_back(static_cast<int>(tasks.size()) - 1);
    bucket_sizes.push_back(bucket);
  }
  std::vector<int> allreduces;
  for (size_t b = 0; b < bucket_ends.size(); ++b) {
    Task allreduce;
    allreduce.kind = TaskKind::collective;
    allreduce.name = "allreduce.bucket" + std::to_string(b);
    allreduce.op = CollectiveOp::allreduce;
    allreduce.communicator = 0;
    allreduce.bytes = bucket_sizes[b] * options.gradient_bytes_scale;
    allreduce.stream = 1;
    allreduce.step = 0;
    allreduce.deps.push_back({0, bucket_ends[b]});
    allreduces.push_back(static_cast<int>(tasks.size()));
    tasks.push_back(allreduce);
  }
  // The optimizer applies all gradients once every bucket is reduced.
  double parameter_bytes = 0;
  for (const Layer& layer : layers) parameter_bytes += layer.parameter_bytes;
  Task update = compute_task("optimizer.step", "elementwise", 4 * parameter_bytes / kBytesPerValue, 4 * parameter_bytes, 0);
  for (int a : allreduces) update.deps.push_back({0, a});
  tasks.push_back(update);

  ExecutionGraph graph;
  graph.origin = "generated";
  graph.metadata["workload"] = name;
  graph.metadata["batch_per_gpu"] = std::to_string(options.batch_per_gpu);
  graph.programs.push_back(std::move(program));
  graph.program_of_rank = {0};
  graph.communicators.push_back({0, "world", {{0}}});
  return graph;
}

}  // namespace scalecast
