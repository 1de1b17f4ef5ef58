// The order in which one pipeline stage runs the forward and backward passes of its
// microbatches (Narayanan et al., SC'21, Sec. 2.2; Megatron-LM's schedules.py):
//
//   gpipe        every forward, then every backward (Huang et al. 2019): bubble (P-1)/M, all M
//                microbatches' activations held at once;
//   1f1b         PipeDream-Flush: stage s runs P-s-1 warm-up forwards, then alternates one
//                forward and one backward, then drains: the same bubble, at most P-s microbatches
//                in flight;
//   interleaved  each GPU holds V model chunks (virtual stage c*P + s); forwards go in groups of
//                P microbatches per chunk, warm-up (P-s-1)*2 + (V-1)*P: bubble (P-1)/(M*V), at
//                the price of V times the pipeline transfers. Needs M to be a multiple of P.
//
// Every stage of one schedule runs the same sequence of (microbatch, chunk) forwards (and
// backwards), so a stage and its neighbour send and receive activations in the same order:
// transfers between two stages match one for one.
#pragma once

#include <vector>

#include "sim/strategy/strategy_spec.h"

namespace scalecast {

struct PipelinePass {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  // the model chunk on this GPU (0 unless interleaved); virtual stage chunk*P + stage

  bool operator==(const PipelinePass&) const = default;
};

// Stage `stage` of `stages`, `microbatches` microbatches, `chunks` model chunks per GPU (1 unless
// interleaved). Throws RequestError("strategy") when the interleaved schedule's microbatches are
// not a multiple of the stages.
std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches,
                                          int chunks);

// The forwards a stage runs before its first backward: all M for GPipe, min(P-s-1, M) for 1F1B,
// min((P-s-1)*2 + (V-1)*P, M*V) interleaved (all M*V when M = P). Throws as pipeline_passes.
int warmup_passes(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks);

// Forward passes a stage has started and not yet finished the backward of, at most, over the
// step: how many microbatches' activations it holds at once (per model chunk's worth of layers).
int peak_passes_in_flight(const std::vector<PipelinePass>& passes);
// The same in closed form, without listing the passes: M for GPipe; min(P-s, M) for 1F1B; the
// warm-up plus one (at most M*V) for the interleaved schedule.
int peak_passes_in_flight(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks);

// The schedule's bubble as a fraction of the ideal step: (P-1)/(M*V) (Narayanan et al. Sec. 2.2).
double ideal_bubble_fraction(int stages, int microbatches, int chunks);

}  // namespace scalecast
