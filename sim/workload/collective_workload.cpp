#include "sim/workload/collective_workload.h"

#include "sim/core/quantity_parse.h"

namespace scalecast {

namespace {

RankProgram sweep_program(CollectiveOp op, const std::vector<double>& sizes_bytes) {
  RankProgram program;
  for (double bytes : sizes_bytes) {
    Task task;
    task.kind = TaskKind::collective;
    task.op = op;
    task.bytes = bytes;
    task.communicator = 0;
    task.name = std::string(to_string(op)) + " " + format_bytes(bytes);
    program.tasks.push_back(task);
  }
  return program;
}

}  // namespace

ExecutionGraph collective_sweep_graph(CollectiveOp op, int gpus, const std::vector<double>& sizes_bytes) {
  std::vector<int> world(gpus);
  for (int r = 0; r < gpus; ++r) world[r] = r;
  ExecutionGraph graph = collective_sweep_graph(op, gpus, world, sizes_bytes);
  graph.communicators[0].name = "world";
  return graph;
}

ExecutionGraph collective_sweep_graph(CollectiveOp op, int world_gpus, const std::vector<int>& participants,
                                      const std::vector<double>& sizes_bytes) {
  ExecutionGraph graph;
  graph.origin = "generated";
  graph.programs.push_back(sweep_program(op, sizes_bytes));
  const bool some_idle = static_cast<int>(participants.size()) < world_gpus;
  if (some_idle) graph.programs.push_back(RankProgram{});  // the idle GPUs'
  graph.program_of_rank.assign(world_gpus, some_idle ? 1 : 0);
  for (int rank : participants) graph.program_of_rank.at(rank) = 0;
  graph.communicators.push_back({0, "participants", {participants}});
  return graph;
}

}  // namespace scalecast
