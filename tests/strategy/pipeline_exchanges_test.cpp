// Megatron-LM's p2p calls in a stage's schedule (pipeline_exchanges.h): inputs arrive at the
// last call before their pass and results leave at the first call after it, neighbours' calls
// match transfer for transfer, and stages that block in every call (a rendezvous with both
// neighbours, then torch.cuda.synchronize) never deadlock and keep the schedule's bubble; nor
// do overlapped calls (Megatron Core's overlap_p2p_comm), which receive a pass ahead.
#include "sim/strategy/pipeline_exchanges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <variant>

#include "tests/support/pipeline_cases.h"

namespace scalecast {
namespace {

using testing::ScheduleCase;

std::string describe(const ScheduleCase& c, int stage) {
  return testing::describe(c) + " stage " + std::to_string(stage);
}

// A program flattened: each item a call or a pass, in issue order.
using Item = std::variant<PipelineExchange, PipelinePass>;
std::vector<Item> flat(const PipelineProgram& program) {
  std::vector<Item> items;
  for (const PipelineStep& step : program.steps) {
    for (const PipelineExchange& call : step.exchanges_before) items.push_back(call);
    items.push_back(step.pass);
  }
  for (const PipelineExchange& call : program.exchanges_after) items.push_back(call);
  return items;
}

bool contains(const std::vector<PipelinePass>& passes, const PipelinePass& pass) {
  return std::find(passes.begin(), passes.end(), pass) != passes.end();
}

TEST(PipelineExchanges, InputsArriveAtTheLastCallBeforeTheirPassResultsLeaveAtTheFirstAfter) {
  for (const ScheduleCase& c : testing::schedule_cases())
    for (int s = 0; s < c.stages; ++s) {
      const PipelineProgram program =
          pipeline_program(c.schedule, c.stages, s, c.microbatches, c.chunks, PipelineCalls::synchronous);
      EXPECT_EQ(program.steps.size(), pipeline_passes(c.schedule, c.stages, s, c.microbatches, c.chunks).size());
      const std::vector<Item> items = flat(program);
      for (size_t i = 0; i < items.size(); ++i) {
        if (!std::holds_alternative<PipelinePass>(items[i])) continue;
        const PipelinePass& pass = std::get<PipelinePass>(items[i]);
        const int virtual_stage = pass.chunk * c.stages + s, last = c.stages * c.chunks - 1;
        const bool has_input = pass.forward ? virtual_stage > 0 : virtual_stage < last;
        const bool has_result = pass.forward ? virtual_stage < last : virtual_stage > 0;
        int before = int(i) - 1, after = int(i) + 1;
        while (before >= 0 && !std::holds_alternative<PipelineExchange>(items[before])) --before;
        while (after < int(items.size()) && !std::holds_alternative<PipelineExchange>(items[after])) ++after;
        const bool received = before >= 0 && contains(std::get<PipelineExchange>(items[before]).receives, pass);
        const bool sent = after < int(items.size()) && contains(std::get<PipelineExchange>(items[after]).sends, pass);
        EXPECT_EQ(received, has_input) << describe(c, s) << " pass " << i;
        EXPECT_EQ(sent, has_result) << describe(c, s) << " pass " << i;
      }
    }
}

// What a stage sends to a neighbour, in order, is what the neighbour receives from it: the
// (microbatch, receiving virtual stage) of every transfer, per direction and pair.
TEST(PipelineExchanges, NeighboursCallsMatchTransferForTransfer) {
  for (const ScheduleCase& c : testing::schedule_cases()) {
    const int P = c.stages;
    for (const PipelineCalls mode : {PipelineCalls::synchronous, PipelineCalls::overlapped}) {
      std::map<std::tuple<bool, int>, std::vector<std::pair<int, int>>> sent, received;  // (forward, sender stage)
      for (int s = 0; s < P; ++s)
        for (const Item& item : flat(pipeline_program(c.schedule, P, s, c.microbatches, c.chunks, mode))) {
          if (!std::holds_alternative<PipelineExchange>(item)) continue;
          const PipelineExchange& call = std::get<PipelineExchange>(item);
          for (const PipelinePass& pass : call.sends) {
            const int v = pass.chunk * P + s;
            sent[{pass.forward, s}].push_back({pass.microbatch, pass.forward ? v + 1 : v - 1});
          }
          for (const PipelinePass& pass : call.receives) {
            const int from = pass.forward ? (s + P - 1) % P : (s + 1) % P;
            received[{pass.forward, from}].push_back({pass.microbatch, pass.chunk * P + s});
          }
        }
      EXPECT_EQ(sent, received) << describe(c, 0);
    }
  }
}

// Every stage runs its program with unit pass costs (forward 1/V, backward 2/V) and no transfer
// time. Synchronous: a stage blocks in each call until every neighbour it sends to or receives
// from has reached the matching call. Overlapped: a call never blocks; a pass waits for its
// input's transfer, which takes place once both ends have issued their calls. Returns the
// makespan, or -1 on deadlock.
double makespan(const ScheduleCase& c, PipelineCalls mode) {
  const int P = c.stages;
  std::vector<std::vector<Item>> programs;
  for (int s = 0; s < P; ++s)
    programs.push_back(flat(pipeline_program(c.schedule, P, s, c.microbatches, c.chunks, mode)));
  // A transfer, named by (forward, microbatch, receiving virtual stage): when each end reached
  // its call.
  using Transfer = std::tuple<bool, int, int>;
  std::map<Transfer, double> sender_at, receiver_at;
  std::vector<size_t> next(P, 0);
  std::vector<double> clock(P, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < P; ++s)
      while (next[s] < programs[s].size()) {
        const Item& item = programs[s][next[s]];
        if (const PipelinePass* pass = std::get_if<PipelinePass>(&item)) {
          const int v = pass->chunk * P + s, last = P * c.chunks - 1;
          if (mode == PipelineCalls::overlapped && (pass->forward ? v > 0 : v < last)) {
            const Transfer input{pass->forward, pass->microbatch, v};
            auto sender = sender_at.find(input);
            if (sender == sender_at.end()) break;
            clock[s] = std::max({clock[s], sender->second, receiver_at.at(input)});
          }
          clock[s] += (pass->forward ? 1.0 : 2.0) / c.chunks;
        } else if (mode == PipelineCalls::overlapped) {
          const PipelineExchange& call = std::get<PipelineExchange>(item);
          for (const PipelinePass& p : call.sends) {
            const int v = p.chunk * P + s;
            sender_at.emplace(Transfer{p.forward, p.microbatch, p.forward ? v + 1 : v - 1}, clock[s]);
          }
          for (const PipelinePass& p : call.receives)
            receiver_at.emplace(Transfer{p.forward, p.microbatch, p.chunk * P + s}, clock[s]);
        } else {
          const PipelineExchange& call = std::get<PipelineExchange>(item);
          std::vector<std::pair<Transfer, std::map<Transfer, double>*>> partners;
          for (const PipelinePass& p : call.sends) {
            const int v = p.chunk * P + s;
            const Transfer t{p.forward, p.microbatch, p.forward ? v + 1 : v - 1};
            sender_at.emplace(t, clock[s]);
            partners.push_back({t, &receiver_at});
          }
          for (const PipelinePass& p : call.receives) {
            const Transfer t{p.forward, p.microbatch, p.chunk * P + s};
            receiver_at.emplace(t, clock[s]);
            partners.push_back({t, &sender_at});
          }
          double done = clock[s];
          bool all_there = true;
          for (const auto& [t, other] : partners) {
            auto it = other->find(t);
            if (it == other->end())
              all_there = false;
            else
              done = std::max(done, it->second);
          }
          if (!all_there) break;
          clock[s] = done;
        }
        ++next[s];
        progress = true;
      }
  }
  for (int s = 0; s < P; ++s)
    if (next[s] != programs[s].size()) return -1;
  return *std::max_element(clock.begin(), clock.end());
}

TEST(PipelineExchanges, CallsNeverDeadlockAndKeepTheBubble) {
  for (const PipelineCalls mode : {PipelineCalls::synchronous, PipelineCalls::overlapped})
    for (const ScheduleCase& c : testing::schedule_cases()) {
      const std::string what = describe(c, 0) + (mode == PipelineCalls::overlapped ? ", overlapped" : "");
      testing::expect_papers_bubble(c, makespan(c, mode), what);
    }
}

// Overlapped (Megatron Core's overlap_p2p_comm): a call after every pass, and a pass's input
// received in the call right after the stage's previous pass of the same direction.
TEST(PipelineExchanges, OverlappedCallsReceiveAPassAhead) {
  const PipelineProgram program =
      pipeline_program(PipelineSchedule::interleaved, 4, 1, 8, 2, PipelineCalls::overlapped);
  ASSERT_EQ(program.steps.size(), 32u);
  for (size_t i = 1; i < program.steps.size(); ++i) EXPECT_EQ(program.steps[i].exchanges_before.size(), 1u) << i;
  // Warm-up: 8 forwards; steady: forward 8, backward 0, forward 9, backward 1, ...
  const PipelineExchange& after_forward_8 = program.steps[9].exchanges_before.at(0);
  ASSERT_EQ(after_forward_8.sends.size(), 1u);
  EXPECT_TRUE(after_forward_8.sends[0].forward);  // forward 8's activation leaves before backward 0
  ASSERT_EQ(after_forward_8.receives.size(), 1u);
  EXPECT_TRUE(after_forward_8.receives[0].forward);  // forward 9's input arrives during backward 0
  // Backward 0's gradient comes in the call after the last warm-up forward.
  const PipelineExchange& after_warmup = program.steps[8].exchanges_before.at(0);
  EXPECT_EQ(std::count_if(after_warmup.receives.begin(), after_warmup.receives.end(),
                          [](const PipelinePass& p) { return !p.forward; }),
            1);
}

int calls(const PipelineProgram& program) {
  int n = static_cast<int>(program.exchanges_after.size());
  for (const PipelineStep& step : program.steps) n += static_cast<int>(step.exchanges_before.size());
  return n;
}

TEST(PipelineExchanges, MegatronsCallsPerSchedule) {
  // 1F1B, P=4, M=8, stage 1: two warm-up forwards framed by recv_forward and send_forward,
  // recv_forward before the steady state, one call after each of its 12 passes except the last
  // backward's, then two cool-down backwards framed by recv_backward and send_backward.
  const PipelineProgram one_f_one_b = pipeline_program(PipelineSchedule::one_f_one_b, 4, 1, 8, 1);
  EXPECT_EQ(calls(one_f_one_b), 2 * 2 + 1 + 6 * 2 + 2 * 2);
  EXPECT_EQ(one_f_one_b.steps[1].exchanges_before.size(), 2u);  // send F0, then receive F1's input
  // Interleaved, P=4, V=2, M=8, stage 1: recv_forward, one call after each of 8 warm-up
  // forwards, after each of 8 steady forward-backward pairs and after each of 8 cool-down
  // backwards; nothing between a steady forward and its backward.
  const PipelineProgram interleaved = pipeline_program(PipelineSchedule::interleaved, 4, 1, 8, 2);
  EXPECT_EQ(calls(interleaved), 1 + 8 + 8 + 8);
  const PipelineStep& first_steady_backward = interleaved.steps[8 + 1];
  EXPECT_FALSE(first_steady_backward.pass.forward);
  EXPECT_TRUE(first_steady_backward.exchanges_before.empty());
  // The steady call sends the forward's activation and the backward's gradient together and
  // receives the next forward's input and the next backward's gradient.
  const PipelineExchange& steady = interleaved.steps[8 + 2].exchanges_before.at(0);
  EXPECT_EQ(steady.sends.size(), 2u);
  EXPECT_EQ(steady.receives.size(), 2u);
  // A single stage talks to nobody.
  EXPECT_EQ(calls(pipeline_program(PipelineSchedule::one_f_one_b, 1, 0, 4, 1)), 0);
}

}  // namespace
}  // namespace scalecast
