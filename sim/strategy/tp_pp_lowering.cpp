#include "sim/strategy/tp_pp_lowering.h"

#include <algorithm>

#include "sim/strategy/tp_pp_stage.h"

namespace scalecast {

namespace comm = tp_pp_communicator;

namespace {

// Every communicator the stages use, each a family of disjoint groups over the whole job.
std::vector<Communicator> communicators(const TensorPipelinePlan& plan) {
  const RankLayout& layout = plan.layout;
  const int stages = layout.stages(), replicas = layout.replicas(), tensor = layout.tensor();
  Communicator tp{comm::kTensor, "tensor", {}}, gradients{comm::kGradients, "data.gradients", {}},
      parameters{comm::kParameters, "data.weights", {}}, embedding{comm::kEmbedding, "tied.embedding", {}};
  for (int s = 0; s < stages; ++s) {
    for (int d = 0; d < replicas; ++d) tp.groups.push_back(layout.tensor_group({0, s, d}));
    for (int t = 0; t < tensor; ++t) gradients.groups.push_back(layout.data_group({t, s, 0}));
  }
  parameters.groups = gradients.groups;
  for (int d = 0; d < replicas; ++d)
    for (int t = 0; t < tensor; ++t) {
      std::vector<int> pair = {layout.rank({t, 0, d}), layout.rank({t, stages - 1, d})};
      std::sort(pair.begin(), pair.end());
      embedding.groups.push_back(pair);
    }
  // Only those with more than one rank per group: a collective of one rank moves nothing.
  std::vector<Communicator> all;
  if (tensor > 1) all.push_back(tp);
  if (replicas > 1) all.insert(all.end(), {gradients, parameters});
  if (plan.tied_embeddings) all.push_back(embedding);
  // Pipeline transfers: stage s to its next (forward) and to its previous (backward); a pair's
  // groups list the lower stage's rank first. The wrap-around pairs exist for interleaving.
  for (int s = 0; s < stages && stages > 1; ++s) {
    for (const bool forward : {true, false}) {
      const int peer = forward ? (s + 1) % stages : (s + stages - 1) % stages;
      Communicator pair{forward ? comm::forward_pair(s) : comm::backward_pair(s),
                        std::string(forward ? "pipeline.forward." : "pipeline.backward.") + std::to_string(s) + "-to-" +
                            std::to_string(peer),
                        {}};
      for (int d = 0; d < replicas; ++d)
        for (int t = 0; t < tensor; ++t) {
          const int a = layout.rank({t, std::min(s, peer), d}), b = layout.rank({t, std::max(s, peer), d});
          pair.groups.push_back({a, b});
        }
      all.push_back(std::move(pair));
    }
  }
  return all;
}

}  // namespace

ExecutionGraph lower_tensor_pipeline(const TensorPipelinePlan& plan, const std::string& workload) {
  ExecutionGraph graph;
  graph.origin = "generated";
  graph.metadata["workload"] = workload;
  graph.metadata["strategy"] = tensor_pipeline_strategy(plan.spec).name();
  graph.metadata["global_batch"] = std::to_string(plan.global_batch);
  graph.metadata["microbatches"] = std::to_string(plan.microbatches);
  const int stages = plan.spec.pipeline;
  graph.programs.resize(stages);
  for (int rank = 0; rank < plan.gpus; ++rank) graph.program_of_rank.push_back(plan.layout.coordinates(rank).stage);
  graph.communicators = communicators(plan);
  for (int s = 0; s < stages; ++s) StageBuilder(plan, s, plan.optimizer_s[s], graph.programs[s]).build();
  return graph;
}

}  // namespace scalecast
