// Where a pipeline stage talks to its neighbours: the points in its schedule at which
// Megatron-LM calls p2p_communication._communicate, one batched call (batch_isend_irecv, one
// NCCL group) that sends what the passes since the last call produced and receives what the
// passes before the next call need. Read from Megatron-LM's schedules.py (2021-2023):
//
//   1f1b, gpipe  forward_backward_pipelining_without_interleaving: a warm-up forward is framed
//                by recv_forward and send_forward, two calls; in the steady state one call after
//                each pass (send_forward_recv_backward, send_backward_recv_forward); a cool-down
//                backward is framed by recv_backward and send_backward. GPipe is the same code
//                with every forward in the warm-up.
//   interleaved  forward_backward_pipelining_with_interleaving: recv_forward once before the
//                first pass, then one call after each warm-up forward, after each steady
//                forward-backward pair (send_forward_backward_recv_forward_backward, nothing
//                between the pair) and after each cool-down backward.
//
// In all of them a pass's result leaves at the first call after it and a pass's input arrives
// at the last call before it (Megatron's recv_prev/recv_next flags work out to exactly that,
// for the first and last stage too). Each call is a rendezvous with both neighbours: a send
// cannot start before the neighbour reaches its matching call. Until 2023 every call ended in
// torch.cuda.synchronize() ("to protect against race condition when using batch_isend_irecv"),
// so the stage's next work also waits for the whole call -- tp_pp_stage.h.
//
// Overlapped (Megatron Core's interleaved schedule with overlap_p2p_comm, megatron/core/
// pipeline_parallel/schedules.py: send_forward_recv_forward after each forward,
// send_backward_recv_backward after each backward, each waited for only before the pass that
// needs it): one call after every pass, a result leaving at the call after its pass and an
// input arriving at the call after the stage's previous pass of the same direction -- a
// forward's during the backward between, and the first backward's after the last warm-up
// forward. Megatron Core refuses it for the non-interleaved schedule, and so 1F1B and GPipe
// keep their synchronous calls' places in either mode.
#pragma once

#include <vector>

#include "sim/strategy/pipeline_schedule.h"

namespace scalecast {

// One batched p2p call. A forward pass's send is its activation to the next stage, its receive
// the activation from the previous one; a backward pass's go the other way.
struct PipelineExchange {
  std::vector<PipelinePass> sends;
  std::vector<PipelinePass> receives;
  bool empty() const { return sends.empty() && receives.empty(); }
};

// A stage's program: its passes in schedule order, each with the non-empty calls that precede
// it, and the calls after its last pass.
struct PipelineStep {
  std::vector<PipelineExchange> exchanges_before;
  PipelinePass pass;
};
struct PipelineProgram {
  std::vector<PipelineStep> steps;
  std::vector<PipelineExchange> exchanges_after;
};

enum class PipelineCalls { synchronous, overlapped };

// The program of stage `stage` (arguments as pipeline_passes, whose order the passes keep).
// Only transfers with a neighbour appear: the first virtual stage receives no forward input
// and sends no input gradient, the last receives no output gradient and sends no activation.
PipelineProgram pipeline_program(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks,
                                 PipelineCalls mode = PipelineCalls::synchronous);

}  // namespace scalecast
