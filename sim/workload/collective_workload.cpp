#include "sim/workload/collective_workload.h"

#include "sim/core/quantity_parse.h"

namespace scalecast {

ExecutionGraph collective_sweep_graph(CollectiveOp op, int gpus, const std::vector<double>& sizes_bytes) {
  ExecutionGraph graph;
  graph.origin = "generated";
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
  graph.programs.push_back(program);
  graph.program_of_rank.assign(gpus, 0);
  std::vector<int> world(gpus);
  for (int r = 0; r < gpus; ++r) world[r] = r;
  graph.communicators.push_back({0, "world", {world}});
  return graph;
}

}  // namespace scalecast
