#include "sim/strategy/pipeline_schedule.h"

#include <algorithm>
#include <string>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// The k-th forward (or backward) of an interleaved stage, as Megatron's get_model_chunk_id
// numbers them: groups of P microbatches per chunk, chunks ascending forward and descending
// backward.
PipelinePass interleaved_pass(bool forward, int k, int stages, int chunks) {
  const int in_group = k % (stages * chunks);
  int chunk = in_group / stages;
  if (!forward) chunk = chunks - 1 - chunk;
  const int microbatch = (k / (stages * chunks)) * stages + k % stages;
  return {forward, microbatch, chunk};
}

// Warm-up forwards, then one forward and one backward at a time, then the remaining backwards.
std::vector<PipelinePass> one_forward_one_backward(int total, int warmup, int stages, int chunks) {
  std::vector<PipelinePass> passes;
  const auto pass = [&](bool forward, int k) { return interleaved_pass(forward, k, stages, chunks); };
  for (int k = 0; k < warmup; ++k) passes.push_back(pass(true, k));
  const int steady = total - warmup;
  for (int k = 0; k < steady; ++k) {
    passes.push_back(pass(true, warmup + k));
    passes.push_back(pass(false, k));
  }
  for (int k = steady; k < total; ++k) passes.push_back(pass(false, k));
  return passes;
}

}  // namespace

int warmup_passes(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks) {
  if (schedule == PipelineSchedule::gpipe) return microbatches;
  if (schedule == PipelineSchedule::one_f_one_b) return std::min(stages - stage - 1, microbatches);
  if (microbatches % stages != 0)
    throw RequestError("strategy", "the interleaved schedule needs the microbatches per replica (" +
                                       std::to_string(microbatches) + ") to be a multiple of the pipeline stages (" +
                                       std::to_string(stages) + ")");
  const int total = microbatches * chunks;
  // As Megatron: with as many microbatches as stages, every forward goes first.
  return microbatches == stages ? total : std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
}

std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches,
                                          int chunks) {
  if (schedule != PipelineSchedule::interleaved) chunks = 1;
  const int warmup = warmup_passes(schedule, stages, stage, microbatches, chunks);
  return one_forward_one_backward(microbatches * chunks, warmup, stages, chunks);
}

int peak_passes_in_flight(const std::vector<PipelinePass>& passes) {
  int in_flight = 0, peak = 0;
  for (const PipelinePass& pass : passes) {
    in_flight += pass.forward ? 1 : -1;
    peak = std::max(peak, in_flight);
  }
  return peak;
}

int peak_passes_in_flight(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks) {
  if (schedule == PipelineSchedule::gpipe) return microbatches;
  if (schedule == PipelineSchedule::one_f_one_b) return std::min(stages - stage, microbatches);
  const int total = microbatches * chunks;
  if (microbatches == stages) return total;
  return std::min((stages - stage - 1) * 2 + (chunks - 1) * stages + 1, total);
}

double ideal_bubble_fraction(int stages, int microbatches, int chunks) {
  return double(stages - 1) / (double(microbatches) * chunks);
}

}  // namespace scalecast
