// How a tp/pp point's step divides up (docs/parallelism.md "Reading the breakdown"), read from
// the timeline of the pipeline stage that sets the step (step_report.h) and the streams the
// lowering put each kind of work on (tp_pp_lowering.h):
//
//   compute_s            the compute stream busy: layers, embedding, head, optimizer step;
//                        interference_s of it: the layers' kernels slowed by NCCL kernels
//                        resident beside them (sim/engine/gpu_sharing.h)
//   tp_comm_s            tensor-parallel collectives, in all; tp_exposed_s: while no compute ran
//                        (collectives counted from when their transfer began: the time a
//                        stage waits for the others to arrive is bubble, collective_waits.h)
//   dp_comm_s            data-parallel gradient reductions and weight gathers (and the tied
//                        embedding's all-reduce); dp_exposed_s: while neither compute nor a
//                        tensor-parallel collective ran
//   pp_bubble_s          the rest of the step: the compute stream idle waiting for the other
//                        stages, the pipeline's fill and drain and its transfers' waits
//   pp_send_s            the time one stage's activation and gradient transfers took on the
//                        wire (all pipeline transfers of the step over the stages)
//
// with the schedule's ideal bubble fraction (P-1)/(M V) for comparison, the memory each GPU
// needs, and the throughput the literature reports (samples and tokens per second, model
// TFLOP/s per GPU and its fraction of peak).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/report/scenario.h"

namespace scalecast {

struct TensorPipelineBreakdown {
  int stage = 0;
  double step_s = 0;
  double compute_s = 0;
  double interference_s = 0;  // of compute_s: NCCL kernels beside it slowed it (sim/engine/gpu_sharing.h)
  double tp_comm_s = 0, tp_exposed_s = 0;
  double dp_comm_s = 0, dp_exposed_s = 0;
  double pp_bubble_s = 0;
  double pp_send_s = 0;
  double ideal_bubble_fraction = 0;
};

TensorPipelineBreakdown tensor_pipeline_breakdown(const PointResult& point);

// The fields simulate --json adds for a tp/pp point: layout, breakdown, memory_per_gpu,
// throughput.
nlohmann::ordered_json tensor_pipeline_json(const Scenario& scenario, const PointResult& point);

}  // namespace scalecast
