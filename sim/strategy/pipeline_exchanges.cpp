#include "sim/strategy/pipeline_exchanges.h"

namespace scalecast {

namespace {

// How many p2p calls Megatron-LM makes in gap `gap` of a stage's pass list: gap 0 before the
// first pass, gap i between passes i-1 and i, gap N after the last. Passes [0, warmup) are the
// warm-up forwards, then `steady` forward-backward pairs, then the cool-down backwards.
int calls_in_gap(PipelineSchedule schedule, int gap, int passes, int warmup, int steady, bool all_warmup) {
  if (gap == 0 || gap == passes) return 1;
  const int steady_end = warmup + 2 * steady;  // first cool-down pass
  const bool inside_steady = gap > warmup && gap < steady_end;
  if (schedule != PipelineSchedule::interleaved) return inside_steady ? 1 : 2;
  // Interleaved: nothing between a steady forward and its backward.
  if (inside_steady) return (gap - warmup) % 2 == 1 ? 0 : 1;
  // With M = P every forward is a warm-up one: send_forward_recv_forward, then recv_backward.
  if (gap == warmup && all_warmup) return 2;
  return 1;
}

bool has_previous_virtual_stage(const PipelinePass& pass, int stages, int stage) {
  return pass.chunk * stages + stage > 0;
}

bool has_next_virtual_stage(const PipelinePass& pass, int stages, int stage, int chunks) {
  return pass.chunk * stages + stage < stages * chunks - 1;
}

}  // namespace

PipelineProgram pipeline_program(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks,
                                 PipelineCalls mode) {
  if (schedule != PipelineSchedule::interleaved) chunks = 1;
  const std::vector<PipelinePass> passes = pipeline_passes(schedule, stages, stage, microbatches, chunks);
  const int count = static_cast<int>(passes.size());
  const int warmup = warmup_passes(schedule, stages, stage, microbatches, chunks);
  const int steady = microbatches * chunks - warmup;
  const bool all_warmup = schedule == PipelineSchedule::interleaved && microbatches == stages;
  // Megatron Core overlaps p2p calls in the interleaved schedule only ("Non-interleaved
  // pipeline parallelism does not support overlapping p2p communication"): 1F1B and GPipe keep
  // their calls, and only the host synchronization goes (tp_pp_stage.cpp).
  const bool overlapped = mode == PipelineCalls::overlapped && schedule == PipelineSchedule::interleaved;

  // calls[g]: the calls of gap g, in order.
  std::vector<std::vector<PipelineExchange>> calls(count + 1);
  for (int gap = 0; gap <= count; ++gap)
    calls[gap].resize(overlapped ? 1 : calls_in_gap(schedule, gap, count, warmup, steady, all_warmup));
  // Overlapped, a pass's input comes in the call after the stage's previous pass of the same
  // direction: the first forward's before every pass, the first backward's after the last
  // warm-up forward. Indexed by PipelinePass::forward.
  int overlapped_receive_gap[2] = {warmup, 0};
  for (int i = 0; i < count; ++i) {
    const PipelinePass& pass = passes[i];
    const bool from_previous = has_previous_virtual_stage(pass, stages, stage);
    const bool from_next = has_next_virtual_stage(pass, stages, stage, chunks);
    // The input arrives at the last call before the pass (overlapped: ahead of it) ...
    if (pass.forward ? from_previous : from_next) {
      int gap = overlapped ? overlapped_receive_gap[pass.forward] : i;
      while (calls[gap].empty()) --gap;  // gap 0 always has a call
      calls[gap].back().receives.push_back(pass);
    }
    // ... and the result leaves at the first call after it.
    if (pass.forward ? from_next : from_previous) {
      int gap = i + 1;
      while (calls[gap].empty()) ++gap;  // gap N always has a call
      calls[gap].front().sends.push_back(pass);
    }
    overlapped_receive_gap[pass.forward] = i + 1;
  }

  PipelineProgram program;
  auto non_empty = [](const std::vector<PipelineExchange>& gap_calls) {
    std::vector<PipelineExchange> kept;
    for (const PipelineExchange& call : gap_calls)
      if (!call.empty()) kept.push_back(call);
    return kept;
  };
  for (int i = 0; i < count; ++i) program.steps.push_back({non_empty(calls[i]), passes[i]});
  program.exchanges_after = non_empty(calls[count]);
  return program;
}

}  // namespace scalecast
