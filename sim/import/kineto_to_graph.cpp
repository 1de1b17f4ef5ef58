#include "sim/import/kineto_to_graph.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/import/message_pairing.h"
#include "sim/import/rank_program_builder.h"

namespace scalecast {

namespace {

constexpr double kUs = 1e-6;

std::string gpu_model(const KinetoTrace& trace) {
  std::map<int, int> uses;
  for (const auto& op : trace.gpu_ops) ++uses[op.device];
  int device = uses.empty() ? 0 : std::max_element(uses.begin(), uses.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  auto it = trace.device_names.find(device);
  if (it == trace.device_names.end()) return "";
  std::string name = it->second;
  for (const char* prefix : {"NVIDIA ", "Tesla "})
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  return name;
}

// Each file's rank, and the world size: from distributedInfo, else one rank per file in order.
std::vector<int> ranks_of_files(const std::vector<KinetoTrace>& traces, int& world) {
  world = -1;
  for (const auto& t : traces) {
    if (t.world_size < 0) continue;
    if (world >= 0 && t.world_size != world)
      throw InputError(t.source, "distributedInfo.world_size",
                       "is " + std::to_string(t.world_size) + " but " + traces.front().source + " has " + std::to_string(world));
    world = t.world_size;
  }
  if (world < 0) world = static_cast<int>(traces.size());
  std::vector<int> rank_of_file;
  std::map<int, std::string> file_of_rank;
  for (size_t f = 0; f < traces.size(); ++f) {
    const auto& t = traces[f];
    const int rank = t.rank >= 0 ? t.rank : static_cast<int>(f);
    if (rank >= world)
      throw InputError(t.source, "distributedInfo.rank",
                       "rank " + std::to_string(rank) + " is outside the world of " + std::to_string(world) + " ranks");
    auto [it, added] = file_of_rank.emplace(rank, t.source);
    if (!added) throw InputError(t.source, "distributedInfo.rank", "rank " + std::to_string(rank) + " is also traced by " + it->second);
    rank_of_file.push_back(rank);
  }
  return rank_of_file;
}

// Untraced ranks run the program of the first traced rank: a DP job is symmetric.
void replay_untraced_ranks_by_symmetry(KinetoImport& out, int first_traced, size_t traced) {
  ExecutionGraph& graph = out.graph;
  std::vector<int> missing;
  for (int r = 0; r < graph.world_size(); ++r)
    if (graph.program_of_rank[r] < 0) {
      graph.program_of_rank[r] = graph.program_of_rank[first_traced];
      missing.push_back(r);
    }
  if (missing.empty()) return;
  std::ostringstream message;
  message << "traced " << traced << " of " << graph.world_size() << " ranks; the " << missing.size()
          << " untraced rank(s) replay rank " << first_traced << "'s program by symmetry (assumes a data-parallel job)";
  out.warnings.push_back(message.str());
}

void add_metadata(const KinetoTrace& first, const std::string& files, const KinetoImportOptions& options, KinetoImport& out) {
  std::vector<int> numbers;
  for (const auto& s : first.steps) numbers.push_back(s.number);
  std::sort(numbers.begin(), numbers.end());
  ExecutionGraph& graph = out.graph;
  graph.metadata["kineto_files"] = files;
  if (!numbers.empty()) graph.metadata["profiler_steps"] = std::to_string(numbers.front()) + "-" + std::to_string(numbers.back());
  if (!first.nccl_version.empty()) graph.metadata["nccl_version"] = first.nccl_version;
  graph.metadata["granularity"] = options.per_kernel ? "kernel" : "operator";
  out.stats.steps = static_cast<int>(numbers.empty() ? 1 : numbers.size());
}

void add_count_warnings(KinetoImport& out, long unpaired) {
  if (out.stats.unknown_sizes > 0)
    out.warnings.push_back(std::to_string(out.stats.unknown_sizes) +
                           " NCCL kernel(s) carry no size and none could be inferred; they replay as 0-byte collectives");
  if (out.stats.point_to_point > 0)
    out.warnings.push_back(std::to_string(out.stats.point_to_point) +
                           " NCCL send/recv kernel(s) keep their measured duration: their direction, peer or size could not be "
                           "inferred, or their partner is not in the traced ranks" +
                           (unpaired > 0 ? " (" + std::to_string(unpaired) + " of them)" : std::string()));
}

}  // namespace

KinetoImport kineto_to_graph(std::vector<KinetoTrace> traces, const KinetoImportOptions& options) {
  if (traces.empty()) throw RequestError("traces", "no trace files given");
  KinetoImport out;
  int world = 0;
  const std::vector<int> rank_of_file = ranks_of_files(traces, world);
  std::map<std::vector<int>, int> communicators;
  ExecutionGraph& graph = out.graph;
  graph.origin = "import:kineto";
  graph.traced_gpu = gpu_model(traces.front());
  graph.program_of_rank.assign(world, -1);
  std::string files;
  for (size_t f = 0; f < traces.size(); ++f) {
    RankProgram program = build_rank_program(traces[f], options, out, rank_of_file[f], world, communicators);
    auto same = std::find(graph.programs.begin(), graph.programs.end(), program);
    const int index = same != graph.programs.end() ? static_cast<int>(same - graph.programs.begin()) : static_cast<int>(graph.programs.size());
    if (same == graph.programs.end()) graph.programs.push_back(std::move(program));
    graph.program_of_rank[rank_of_file[f]] = index;
    // Keep what the metadata needs (source, rank, steps); release the events.
    KinetoTrace& used = traces[f];
    used.gpu_ops = {};
    used.runtime_calls = {};
    used.nccl_args = {};
    used.allocations = {};
    used.names = {};
    const std::string& path = traces[f].source;
    files += (files.empty() ? "" : ", ") + path.substr(path.find_last_of('/') + 1);
  }
  replay_untraced_ranks_by_symmetry(out, rank_of_file.front(), traces.size());
  // Messages pair across ranks only once every program is known.
  const long unpaired = demote_unpaired_messages(graph);
  out.stats.inferred_point_to_point -= unpaired;
  out.stats.point_to_point += unpaired;
  for (const auto& [ranks, id] : communicators) graph.communicators.push_back({id, id == 0 ? "world" : "pg" + std::to_string(id), {ranks}});
  std::sort(graph.communicators.begin(), graph.communicators.end(), [](auto& a, auto& b) { return a.id < b.id; });
  add_metadata(traces.front(), files, options, out);
  out.stats.world_size = world;
  out.stats.traced_ranks = static_cast<int>(traces.size());
  add_count_warnings(out, unpaired);
  validate(graph, traces.front().source);
  return out;
}

double steady_profiler_step_s(const KinetoTrace& trace) {
  std::vector<KinetoStep> steps = trace.steps;
  std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.ts_us < b.ts_us; });
  std::vector<double> durations;
  for (size_t k = steps.size() > 1 ? 1 : 0; k < steps.size(); ++k) durations.push_back(steps[k].dur_us * kUs);
  if (durations.empty()) return 0;
  std::sort(durations.begin(), durations.end());
  const size_t n = durations.size();
  return n % 2 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2;
}

}  // namespace scalecast
