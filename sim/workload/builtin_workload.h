// The built-in generated workload: one training step of a ResNet-50-like network for one GPU
// (forward, backward, DDP-style gradient buckets allreduced on a communication stream as soon
// as their last gradient is produced, optimizer update). Compute tasks carry FLOPs and bytes
// for the cost model, so their durations follow the simulated GPU.
#pragma once

#include <string>

#include "sim/trace/execution_graph.h"

namespace scalecast {

struct BuiltinWorkloadOptions {
  int batch_per_gpu = 64;
  double bucket_bytes = 25.0 * 1024 * 1024;  // DDP's default bucket_cap_mb = 25
  double gradient_bytes_scale = 1;             // 0 turns the gradients' allreduces into no-ops
};

// Names the built-in workloads accept ("resnet50").
bool is_builtin_workload(const std::string& name);

// A one-rank graph: world communicator 0 holds rank 0; stream 0 computes, stream 1 communicates.
ExecutionGraph builtin_workload(const std::string& name, const BuiltinWorkloadOptions& options);

}  // namespace scalecast
