#include "sim/trace/trace_json.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/json_input.h"
#include "sim/core/physical_limits.h"

namespace scalecast {

namespace fs = std::filesystem;
using json = nlohmann::json;
// Files are written from insertion-ordered objects so that "format" and "kind" come first and a
// trace reads naturally; the order carries no meaning when reading.
using ordered_json = nlohmann::ordered_json;

namespace {

constexpr const char* kManifestName = "manifest.json";


// ---------------------------------------------------------------------------------------------
// Reading JSON text
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Reading the schema: typed access to JSON values, with the field path in every error
// ---------------------------------------------------------------------------------------------

// The format name and version come first: a file of another kind or version should be told so,
// not be reported for fields this reader does not know.
void check_format(JsonFields& fields, const std::string& format_name) {
  std::string format;
  if (!fields.find("format") && fields.find("traceEvents"))
    throw InputError(fields.source(), "", kineto_import_hint(fields.source()));
  if (!fields.find("format"))
    throw InputError(fields.source(), "format",
                     "is missing; a scalecast trace file starts with \"format\": \"" + format_name + "\"");
  fields.read_required("format", format);
  if (format != format_name)
    throw InputError(fields.source(), "format", "is \"" + format + "\"; expected \"" + format_name + "\"");
  int version = 0;
  fields.read_required("version", version);
  if (version < ExecutionGraph::kOldestReadableVersion || version > ExecutionGraph::kFormatVersion)
    throw InputError(fields.source(), "version",
                     "is " + std::to_string(version) + ", but this scalecast reads versions " +
                         std::to_string(ExecutionGraph::kOldestReadableVersion) + " to " +
                         std::to_string(ExecutionGraph::kFormatVersion));
}

TaskRef parse_dep(const json& value, const std::string& source, const std::string& path) {
  TaskRef dep;
  if (value.is_number()) {
    convert_json(value, source, path, dep.task);
    return dep;
  }
  JsonFields fields(value, source, path, "a dependency: a task index or {\"rank_offset\": R, \"task\": T}");
  fields.read("rank_offset", dep.rank_offset);
  fields.read_required("task", dep.task);
  fields.reject_unknown();
  return dep;
}

void parse_compute_fields(JsonFields& fields, Task& task) {
  // No duration means "estimate it with the cost model", which the IR marks as a negative one.
  if (fields.read("duration_s", task.duration_s)) {
    if (task.duration_s < 0)
      throw InputError(fields.source(), fields.path("duration_s"),
                       "is negative; omit duration_s to have the cost model estimate the task");
  } else {
    task.duration_s = -1;
  }
  fields.read("flops", task.flops);
  fields.read("memory_bytes", task.memory_bytes);
  fields.read("compute_bound_s", task.compute_bound_s);
  fields.read("memory_bound_s", task.memory_bound_s);
  fields.read("launches", task.launches);
  fields.read("op_kind", task.op_kind);
  if (fields.read("precision", task.precision)) {
    static const char* const kPrecisions[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
    if (std::find(std::begin(kPrecisions), std::end(kPrecisions), task.precision) == std::end(kPrecisions))
      throw InputError(fields.source(), fields.path("precision"),
                       "is \"" + task.precision + "\"; expected fp64, fp32, tf32, fp16, bf16 or fp8");
  }
}

void parse_collective_fields(JsonFields& fields, Task& task) {
  std::string op;
  fields.read_required("op", op);
  if (!parse_collective_op(op, task.op))
    throw InputError(fields.source(), fields.path("op"),
                     "is \"" + op + "\"; expected allreduce, allgather, reducescatter, broadcast, reduce or alltoall");
  fields.read_required("communicator", task.communicator);
  fields.read_required("bytes", task.bytes);
  fields.read("dtype", task.dtype);
  fields.read("root", task.root);
}

void parse_point_to_point_fields(JsonFields& fields, Task& task) {
  fields.read_required("peer_offset", task.peer_offset);
  fields.read_required("bytes", task.bytes);
  fields.read("tag", task.tag);
}

Task parse_task(const json& value, const std::string& source, const std::string& path) {
  JsonFields fields(value, source, path, "a task");
  Task task;
  std::string kind;
  fields.read_required("kind", kind);
  if (!parse_task_kind(kind, task.kind))
    throw InputError(source, fields.path("kind"), "is \"" + kind + "\"; expected compute, collective, send or recv");
  fields.describe_as("a " + kind + " task");
  fields.read("name", task.name);
  fields.read("stream", task.stream);
  fields.read("step", task.step);
  if (const json* deps = fields.find("deps")) {
    const std::string deps_path = fields.path("deps");
    for (const json& dep : json_array(*deps, source, deps_path))
      task.deps.push_back(parse_dep(dep, source, json_index_path(deps_path, task.deps.size())));
  }
  switch (task.kind) {
    case TaskKind::compute: parse_compute_fields(fields, task); break;
    case TaskKind::collective: parse_collective_fields(fields, task); break;
    case TaskKind::send:
    case TaskKind::recv: parse_point_to_point_fields(fields, task); break;
  }
  fields.reject_unknown();
  return task;
}

std::vector<Task> parse_tasks(const json& value, const std::string& source, const std::string& path) {
  std::vector<Task> tasks;
  tasks.reserve(json_array(value, source, path).size());
  for (const json& task : value) tasks.push_back(parse_task(task, source, json_index_path(path, tasks.size())));
  return tasks;
}

std::vector<int> parse_int_array(const json& value, const std::string& source, const std::string& path) {
  std::vector<int> numbers;
  numbers.reserve(json_array(value, source, path).size());
  for (const json& item : value) {
    int number = 0;
    convert_json(item, source, json_index_path(path, numbers.size()), number);
    numbers.push_back(number);
  }
  return numbers;
}

// {"id": 0, "name": "world", "ranks": [0, 1]} for one group, or "groups": [[0, 1], [2, 3]].
Communicator parse_communicator(const json& value, const std::string& source, const std::string& path) {
  JsonFields fields(value, source, path, "a communicator");
  Communicator communicator;
  fields.read_required("id", communicator.id);
  fields.read("name", communicator.name);
  const json* ranks = fields.find("ranks");
  const json* groups = fields.find("groups");
  if (ranks && groups)
    throw InputError(source, path, "has both \"ranks\" and \"groups\"; give one group as \"ranks\" or several as \"groups\"");
  if (!ranks && !groups)
    throw InputError(source, path, "needs \"ranks\" (one group) or \"groups\" (a list of disjoint rank lists)");
  if (ranks) {
    communicator.groups.push_back(parse_int_array(*ranks, source, fields.path("ranks")));
  } else {
    const std::string groups_path = fields.path("groups");
    for (const json& group : json_array(*groups, source, groups_path))
      communicator.groups.push_back(parse_int_array(group, source, json_index_path(groups_path, communicator.groups.size())));
  }
  fields.reject_unknown();
  return communicator;
}

// The fields a single file and a directory manifest share: origin, GPU, metadata, communicators.
void parse_common_fields(JsonFields& fields, ExecutionGraph& graph) {
  fields.read("origin", graph.origin);
  fields.read("traced_gpu", graph.traced_gpu);
  if (const json* metadata = fields.find("metadata")) {
    JsonFields entries(*metadata, fields.source(), fields.path("metadata"), "metadata (string values)");
    for (auto it = metadata->begin(); it != metadata->end(); ++it)
      entries.read(it.key(), graph.metadata[it.key()]);
  }
  if (const json* communicators = fields.find("communicators")) {
    const std::string path = fields.path("communicators");
    for (const json& communicator : json_array(*communicators, fields.source(), path))
      graph.communicators.push_back(
          parse_communicator(communicator, fields.source(), json_index_path(path, graph.communicators.size())));
  }
}

// ---------------------------------------------------------------------------------------------
// The directory form: a manifest and one file per rank
// ---------------------------------------------------------------------------------------------

std::string rank_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.json", rank);
  return name;
}

// Ranks with identical tasks (the replicas of a DP job) share one program again after reading.
class ProgramTable {
 public:
  explicit ProgramTable(std::vector<RankProgram>& programs) : programs_(programs) {}

  int add(RankProgram&& program) {
    std::vector<int>& candidates = by_hash_[hash(program)];
    for (int index : candidates)
      if (programs_[index] == program) return index;
    candidates.push_back(static_cast<int>(programs_.size()));
    programs_.push_back(std::move(program));
    return candidates.back();
  }

 private:
  static void mix(size_t& seed, size_t value) { seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

  static size_t hash(const RankProgram& program) {
    size_t seed = program.tasks.size();
    for (const Task& task : program.tasks) {
      mix(seed, static_cast<size_t>(task.kind));
      mix(seed, std::hash<std::string>{}(task.name));
      mix(seed, static_cast<size_t>(task.stream));
      mix(seed, std::hash<double>{}(task.duration_s));
      mix(seed, std::hash<double>{}(task.bytes));
      mix(seed, static_cast<size_t>(task.communicator));
      mix(seed, static_cast<size_t>(task.peer_offset));
      for (const TaskRef& dep : task.deps) {
        mix(seed, static_cast<size_t>(dep.rank_offset));
        mix(seed, static_cast<size_t>(dep.task));
      }
    }
    return seed;
  }

  std::vector<RankProgram>& programs_;
  std::unordered_map<size_t, std::vector<int>> by_hash_;
};

std::string checked_rank_file(const json& value, const std::string& source, const std::string& path) {
  std::string name;
  convert_json(value, source, path, name);
  const fs::path file(name);
  bool escapes = file.empty() || file.is_absolute();
  for (const fs::path& part : file)
    if (part == "..") escapes = true;
  if (escapes) throw InputError(source, path, "is \"" + name + "\"; expected a file name inside the trace directory");
  return name;
}

RankProgram read_rank_file(const std::string& path, int rank) {
  const json document = parse_json_text(read_text_file(path), path);
  JsonFields fields(document, path, "", "a rank file");
  check_format(fields, kRankFileFormatName);
  int rank_in_file = -1;
  fields.read_required("rank", rank_in_file);
  if (rank_in_file != rank)
    throw InputError(path, "rank",
                     "is " + std::to_string(rank_in_file) + ", but the manifest lists this file for rank " +
                         std::to_string(rank));
  RankProgram program;
  program.tasks = parse_tasks(fields.required("tasks"), path, "tasks");
  fields.reject_unknown();
  return program;
}

// validate() names fields of the single-file form ("programs[3].tasks[7].deps[0]"); in a
// directory, program 3 came from the file of the first rank that runs it, so the error is moved
// there ("rank-00012.json: tasks[7].deps[0]"), and communicator errors to the manifest.
InputError relocate(const InputError& error, const std::vector<std::string>& program_files,
                    const std::string& manifest_path) {
  const std::string prefix = error.source() + ": " + error.field() + ": ";
  const std::string message = error.what();
  const std::string problem = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
  const std::string& field = error.field();
  if (field.rfind("programs[", 0) == 0) {
    const size_t close = field.find(']');
    const int program = std::stoi(field.substr(9, close - 9));
    const std::string rest = close + 2 <= field.size() ? field.substr(close + 2) : "";
    if (program >= 0 && program < static_cast<int>(program_files.size()))
      return InputError(program_files[program], rest, problem);
  }
  if (field.rfind("communicators", 0) == 0) return InputError(manifest_path, field, problem);
  return error;
}

ExecutionGraph read_directory(const fs::path& directory, const json& manifest, const std::string& manifest_path) {
  JsonFields fields(manifest, manifest_path, "", "a trace manifest");
  check_format(fields, kTraceFormatName);
  ExecutionGraph graph;
  parse_common_fields(fields, graph);
  int world_size = 0;
  fields.read_required("world_size", world_size);
  if (world_size < 1 || world_size > limits::kMaxWorldSize)
    throw InputError(manifest_path, "world_size",
                     "is " + std::to_string(world_size) + "; expected 1 to 2^24 (" + std::to_string(limits::kMaxWorldSize) + ")");
  const json& rank_files = json_array(fields.required("rank_files"), manifest_path, "rank_files");
  if (static_cast<int>(rank_files.size()) != world_size)
    throw InputError(manifest_path, "rank_files",
                     "lists " + std::to_string(rank_files.size()) + " files, but world_size is " +
                         std::to_string(world_size) + " (one file per rank)");
  fields.reject_unknown();

  ProgramTable table(graph.programs);
  std::vector<std::string> program_files;  // program -> file of the first rank running it
  for (int rank = 0; rank < world_size; ++rank) {
    const std::string name = checked_rank_file(rank_files[rank], manifest_path, json_index_path("rank_files", rank));
    const std::string path = (directory / name).string();
    const int program = table.add(read_rank_file(path, rank));
    if (program == static_cast<int>(program_files.size())) program_files.push_back(path);
    graph.program_of_rank.push_back(program);
  }
  try {
    validate(graph, directory.string());
  } catch (const InputError& error) {
    throw relocate(error, program_files, manifest_path);
  }
  return graph;
}

// ---------------------------------------------------------------------------------------------
// Writing: JSON values (templated on the object type so to_json() can return plain json while
// files keep a readable key order), then a layout with one task per line
// ---------------------------------------------------------------------------------------------

// Integral values (byte counts, flops) are written without a fraction: "1048576", not "1048576.0".
template <class Json>
Json number_json(double value) {
  constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53
  if (value == std::floor(value) && std::fabs(value) < kExactIntegerLimit) return Json(static_cast<std::int64_t>(value));
  return Json(value);
}

template <class Json>
Json dep_json(const TaskRef& dep) {
  if (dep.rank_offset == 0) return Json(dep.task);
  Json out = Json::object();
  out["rank_offset"] = dep.rank_offset;
  out["task"] = dep.task;
  return out;
}

// Only the fields of the task's kind are written, and those at their default value are left out;
// the reader restores the defaults.
template <class Json>
Json task_json(const Task& task) {
  const Task defaults;
  Json out = Json::object();
  out["kind"] = to_string(task.kind);
  if (!task.name.empty()) out["name"] = task.name;
  if (task.stream != defaults.stream) out["stream"] = task.stream;
  if (task.step != defaults.step) out["step"] = task.step;
  switch (task.kind) {
    case TaskKind::compute:
      if (task.duration_s >= 0) out["duration_s"] = number_json<Json>(task.duration_s);
      if (task.flops != 0) out["flops"] = number_json<Json>(task.flops);
      if (task.memory_bytes != 0) out["memory_bytes"] = number_json<Json>(task.memory_bytes);
      if (task.compute_bound_s != 0) out["compute_bound_s"] = number_json<Json>(task.compute_bound_s);
      if (task.memory_bound_s != 0) out["memory_bound_s"] = number_json<Json>(task.memory_bound_s);
      if (task.launches != defaults.launches) out["launches"] = number_json<Json>(task.launches);
      if (!task.op_kind.empty()) out["op_kind"] = task.op_kind;
      if (!task.precision.empty()) out["precision"] = task.precision;
      break;
    case TaskKind::collective:
      out["op"] = to_string(task.op);
      out["communicator"] = task.communicator;
      out["bytes"] = number_json<Json>(task.bytes);
      if (task.dtype != defaults.dtype) out["dtype"] = task.dtype;
      if (task.root != defaults.root) out["root"] = task.root;
      break;
    case TaskKind::send:
    case TaskKind::recv:
      out["peer_offset"] = task.peer_offset;
      if (task.tag != defaults.tag) out["tag"] = task.tag;
      out["bytes"] = number_json<Json>(task.bytes);
      break;
  }
  if (!task.deps.empty()) {
    Json deps = Json::array();
    for (const TaskRef& dep : task.deps) deps.push_back(dep_json<Json>(dep));
    out["deps"] = std::move(deps);
  }
  return out;
}

template <class Json>
Json tasks_json(const std::vector<Task>& tasks) {
  Json out = Json::array();
  for (const Task& task : tasks) out.push_back(task_json<Json>(task));
  return out;
}

template <class Json>
Json communicator_json(const Communicator& communicator) {
  Json out = Json::object();
  out["id"] = communicator.id;
  if (!communicator.name.empty()) out["name"] = communicator.name;
  if (communicator.groups.size() == 1)
    out["ranks"] = communicator.groups.front();
  else
    out["groups"] = communicator.groups;
  return out;
}

template <class Json>
Json common_json(const ExecutionGraph& graph) {
  Json out = Json::object();
  out["format"] = kTraceFormatName;
  out["version"] = ExecutionGraph::kFormatVersion;
  if (!graph.origin.empty()) out["origin"] = graph.origin;
  if (!graph.traced_gpu.empty()) out["traced_gpu"] = graph.traced_gpu;
  if (!graph.metadata.empty()) {
    Json metadata = Json::object();
    for (const auto& [key, value] : graph.metadata) metadata[key] = value;  // std::map: sorted keys
    out["metadata"] = std::move(metadata);
  }
  Json communicators = Json::array();
  for (const Communicator& communicator : graph.communicators)
    communicators.push_back(communicator_json<Json>(communicator));
  if (!communicators.empty()) out["communicators"] = std::move(communicators);
  return out;
}

template <class Json>
Json graph_json(const ExecutionGraph& graph) {
  Json out = common_json<Json>(graph);
  Json programs = Json::array();
  for (const RankProgram& program : graph.programs) {
    Json entry = Json::object();
    entry["tasks"] = tasks_json<Json>(program.tasks);
    programs.push_back(std::move(entry));
  }
  out["programs"] = std::move(programs);
  out["rank_programs"] = graph.program_of_rank;
  return out;
}

bool holds_only_plain_values(const ordered_json& value) {
  for (const auto& item : value)
    if (item.is_structured()) return false;
  return true;
}

// Pretty-prints with one element per line down to `compact_depth`; deeper values, and arrays of
// plain values (rank lists), stay on one line, so every task is one line of the file and a diff
// of two traces reads task by task.
void append_layout(const ordered_json& value, int depth, int compact_depth, std::string& out) {
  if (!value.is_structured() || value.empty() || depth >= compact_depth ||
      (value.is_array() && holds_only_plain_values(value))) {
    out += value.dump();
    return;
  }
  const std::string indent(2 * (depth + 1), ' ');
  out += value.is_object() ? "{\n" : "[\n";
  size_t remaining = value.size();
  for (auto it = value.begin(); it != value.end(); ++it) {
    out += indent;
    if (value.is_object()) out += ordered_json(it.key()).dump() + ": ";
    append_layout(*it, depth + 1, compact_depth, out);
    out += --remaining > 0 ? ",\n" : "\n";
  }
  out += std::string(2 * depth, ' ');
  out += value.is_object() ? "}" : "]";
}

std::string layout(const ordered_json& value, int compact_depth) {
  std::string out;
  append_layout(value, 0, compact_depth, out);
  return out + "\n";
}

// Depth of one task in each document: root > programs > program > tasks > task.
constexpr int kSingleFileTaskDepth = 4;
// root > tasks > task in a rank file; root > communicators > communicator > groups > group in a manifest.
constexpr int kRankFileTaskDepth = 2;
constexpr int kManifestGroupDepth = 4;

// A rank file is the same for every rank of a program but its "rank" field, so the task list is
// laid out once per program rather than once per rank (16,384 replicas of one program).
std::string rank_file_text(int rank, const std::string& tasks_text) {
  return std::string("{\n  \"format\": \"") + kRankFileFormatName + "\",\n  \"version\": " +
         std::to_string(ExecutionGraph::kFormatVersion) + ",\n  \"rank\": " + std::to_string(rank) +
         ",\n  \"tasks\": " + tasks_text + "\n}\n";
}

std::string tasks_text(const RankProgram& program) {
  ordered_json tasks = tasks_json<ordered_json>(program.tasks);
  std::string out;
  append_layout(tasks, 1, kRankFileTaskDepth, out);
  return out;
}

void write_directory_contents(const ExecutionGraph& graph, const fs::path& directory) {
  ordered_json manifest = common_json<ordered_json>(graph);
  manifest["world_size"] = graph.world_size();
  ordered_json rank_files = ordered_json::array();
  for (int rank = 0; rank < graph.world_size(); ++rank) rank_files.push_back(rank_file_name(rank));
  manifest["rank_files"] = std::move(rank_files);
  write_file_atomically((directory / kManifestName).string(), layout(manifest, kManifestGroupDepth));

  std::unordered_map<int, std::string> text_of_program;
  for (int rank = 0; rank < graph.world_size(); ++rank) {
    const int program = graph.program_of_rank[rank];
    auto found = text_of_program.find(program);
    if (found == text_of_program.end()) found = text_of_program.emplace(program, tasks_text(graph.programs[program])).first;
    write_file_atomically((directory / rank_file_name(rank)).string(), rank_file_text(rank, found->second));
  }
}

[[noreturn]] void fail_to_write(const std::string& path, const std::error_code& error) {
  throw InputError(path, "", "cannot be written: " + error.message());
}

// The trace is written into a temporary directory beside the target and renamed into place, so
// readers never see half a trace. An existing trace directory is replaced; any other existing
// file or non-empty directory is left alone (it is not ours to delete).
void write_directory(const ExecutionGraph& graph, fs::path target) {
  if (!target.has_filename()) target = target.parent_path();  // "out/trace/" names "out/trace"
  const std::string path = target.string();
  std::error_code error;
  const bool exists = fs::exists(target, error);
  if (exists && !fs::is_directory(target, error))
    throw InputError(path, "", "exists and is not a directory; a trace directory cannot replace it");
  if (exists && !fs::exists(target / kManifestName, error) && !fs::is_empty(target, error))
    throw InputError(path, "", "exists and is not a scalecast trace directory (no manifest.json); not replacing it");

  const fs::path temporary = path + ".tmp." + std::to_string(::getpid());
  fs::remove_all(temporary, error);
  if (!fs::create_directory(temporary, error)) fail_to_write(path, error);
  try {
    write_directory_contents(graph, temporary);
    if (exists) {
      const fs::path previous = path + ".old." + std::to_string(::getpid());
      fs::rename(target, previous, error);
      if (error) fail_to_write(path, error);
      fs::rename(temporary, target, error);
      if (error) {
        std::error_code ignored;
        fs::rename(previous, target, ignored);
        fail_to_write(path, error);
      }
      fs::remove_all(previous, error);
    } else {
      fs::rename(temporary, target, error);
      if (error) fail_to_write(path, error);
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    throw;
  }
}

bool ends_with_json(const std::string& path) {
  const std::string suffix = ".json";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_manifest(const json& document) { return document.is_object() && document.contains("rank_files"); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

nlohmann::json to_json(const ExecutionGraph& graph) { return graph_json<json>(graph); }

ExecutionGraph from_json(const nlohmann::json& document, const std::string& source) {
  JsonFields fields(document, source, "", "a scalecast trace");
  check_format(fields, kTraceFormatName);
  if (is_manifest(document))
    throw InputError(source, "rank_files", "this is the manifest of a trace directory; read the directory instead");
  ExecutionGraph graph;
  parse_common_fields(fields, graph);
  const std::string programs_path = "programs";
  for (const json& program : json_array(fields.required("programs"), source, programs_path)) {
    const std::string path = json_index_path(programs_path, graph.programs.size());
    JsonFields program_fields(program, source, path, "a program");
    graph.programs.push_back(RankProgram{parse_tasks(program_fields.required("tasks"), source, path + ".tasks")});
    program_fields.reject_unknown();
  }
  graph.program_of_rank = parse_int_array(fields.required("rank_programs"), source, "rank_programs");
  fields.reject_unknown();
  validate(graph, source);
  return graph;
}

std::string kineto_import_hint(const std::string& path) {
  return "this is a PyTorch profiler (Kineto) trace: run `scalecast import kineto " + path +
         " -o trace.json` first, then inspect or simulate trace.json";
}

void reject_gzip(const std::string& path, const std::string& text) {
  if (text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b')
    throw InputError(path, "", "is gzip-compressed, not a scalecast trace (plain JSON); if " + kineto_import_hint(path));
}

ExecutionGraph read_trace(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    const std::string manifest_path = (fs::path(path) / kManifestName).string();
    if (!fs::exists(manifest_path, error))
      throw InputError(path, "", "is a directory without manifest.json; a trace directory needs one");
    return read_directory(path, parse_json_text(read_text_file(manifest_path), manifest_path), manifest_path);
  }
  const std::string text = read_text_file(path);
  reject_gzip(path, text);
  const json document = parse_json_text(text, path);
  if (is_manifest(document)) return read_directory(fs::path(path).parent_path(), document, path);
  return from_json(document, path);
}

// The same bytes as layout(graph_json(graph), kSingleFileTaskDepth), written one task at a time:
// an imported trace of a few hundred thousand tasks is never one JSON document in memory.
void write_single_file(const ExecutionGraph& graph, std::ostream& out) {
  std::string head = layout(common_json<ordered_json>(graph), kSingleFileTaskDepth);
  head.resize(head.size() - 3);  // drop "\n}\n": programs and rank_programs follow
  out << head << ",\n  \"programs\": ";
  if (graph.programs.empty()) out << "[]";
  else {
    out << "[\n";
    for (size_t p = 0; p < graph.programs.size(); ++p) {
      const auto& tasks = graph.programs[p].tasks;
      out << "    {\n      \"tasks\": ";
      if (tasks.empty()) out << "[]";
      else {
        out << "[\n";
        for (size_t t = 0; t < tasks.size(); ++t)
          out << "        " << task_json<ordered_json>(tasks[t]).dump() << (t + 1 < tasks.size() ? ",\n" : "\n");
        out << "      ]";
      }
      out << "\n    }" << (p + 1 < graph.programs.size() ? ",\n" : "\n");
    }
    out << "  ]";
  }
  out << ",\n  \"rank_programs\": " << ordered_json(graph.program_of_rank).dump() << "\n}\n";
}

void write_trace(const ExecutionGraph& graph, const std::string& path) {
  if (path.empty()) throw RequestError("output", "the path is empty");
  validate(graph, path);
  if (ends_with_json(path))
    write_file_atomically(path, [&](std::ostream& out) { write_single_file(graph, out); });
  else
    write_directory(graph, path);
}

}  // namespace scalecast
