#include "sim/cost/cost_model_table.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/preset_paths.h"
#include "sim/core/quantity_parse.h"
#include "sim/core/yaml_input.h"
#include "sim/cost/kernel_class.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {

namespace {

using namespace yaml;

const std::vector<std::string> kEfficiencyFields = {"compute_efficiency", "memory_efficiency", "launch_overhead",
                                                    "copied_from"};

double read_fraction(const Field& field) {
  const double value = read_number(field);
  if (value <= 0 || value > 1) field.fail("an efficiency is an achieved fraction of the peak: it must be in (0, 1]");
  if (!limits::within(value, limits::kEfficiency)) field.fail(limits::out_of_range(limits::kEfficiency, read_scalar(field)));
  return value;
}

// A fixed cost per task, or a kernel duration: at most a second, like a link's latency.
double read_time_s(const Field& field) {
  const std::string text = read_scalar(field);
  if (text == "0") return 0;
  auto value = parse_seconds(text);
  if (!value || *value < 0) field.fail("expected a time such as 5us, got '" + text + "'");
  if (!limits::within(*value, limits::kLatency_s)) field.fail(limits::out_of_range(limits::kLatency_s, "'" + text + "'"));
  return *value;
}

// A precision name (a map key or a `peak`): one of the GPU's peak_flops names, never a typo
// such as "fp-0" that no GPU or workload would ever look up.
const std::string& checked_precision(const std::string& name, const Field& at) {
  const auto& known = gpu_precisions();
  if (std::find(known.begin(), known.end(), name) == known.end())
    at.fail("unknown precision '" + name + "'; expected one of: " + join_words(known));
  return name;
}

// The entries of a mapping keyed by names (operator kinds, precisions), each with its path; a
// key that is not a plain word, or that is given twice, is an error.
std::vector<std::pair<std::string, Field>> named_entries(const Field& map, const std::string& what) {
  if (!map.node().IsMap()) map.fail("expected a mapping of " + what + ", got " + map.kind());
  std::vector<std::pair<std::string, Field>> entries;
  for (const auto& pair : map.node()) {
    if (!pair.first.IsScalar() || trim(pair.first.Scalar()).empty())
      Field(pair.first, map.source(), map.path()).fail("a key must be a plain word");
    const std::string key = trim(pair.first.Scalar());
    const Field at_key(pair.first, map.source(), join_path(map.path(), key));
    for (const auto& [seen, field] : entries)
      if (seen == key) at_key.fail("given twice");
    entries.emplace_back(key, Field(pair.second, map.source(), at_key.path()));
  }
  return entries;
}

// Fields not given keep the values of `base` (a kind inherits its precision's defaults).
KindEfficiency read_efficiency(const Field& field, KindEfficiency base) {
  MapReader map(field, kEfficiencyFields);
  if (auto f = map.optional("compute_efficiency")) base.compute_efficiency = read_fraction(*f);
  if (auto f = map.optional("memory_efficiency")) base.memory_efficiency = read_fraction(*f);
  if (auto f = map.optional("launch_overhead")) base.launch_overhead_s = read_time_s(*f);
  if (auto f = map.optional("copied_from")) base.copied_from = read_name(*f);
  return base;
}

ComputeCostModel read_precision(const Field& field, const std::string& precision) {
  MapReader map(field, {"default", "kinds", "peak"});
  const KindEfficiency defaults = read_efficiency(map.required("default"), KindEfficiency{});
  ComputeCostModel model;
  // Which of the GPU's peaks this precision runs at: fp32 training on A100/H100 runs its
  // matrix products on TF32 tensor cores (the frameworks' default), so `peak: tf32` there.
  model.precision = precision;
  if (auto peak = map.optional("peak")) model.precision = checked_precision(read_name(*peak), *peak);
  model.compute_efficiency = defaults.compute_efficiency;
  model.memory_efficiency = defaults.memory_efficiency;
  model.launch_overhead_s = defaults.launch_overhead_s;
  model.copied_from = defaults.copied_from;
  if (auto kinds = map.optional("kinds"))
    for (const auto& [kind, entry] : named_entries(*kinds, "operator kinds")) model.per_kind[kind] = read_efficiency(entry, defaults);
  return model;
}

// `with_match`: a family (which needs a name and match strings) rather than `uncalibrated`.
CostModelFamily read_family(const Field& item, bool with_match) {
  std::vector<std::string> fields = {"precisions"};
  if (with_match) fields.insert(fields.end(), {"family", "match"});
  MapReader map(item, fields);
  CostModelFamily family;
  family.source = item.source();
  family.family = with_match ? read_name(map.required("family")) : "uncalibrated";
  if (with_match) {
    for (const Field& m : map.required("match").items()) family.match.push_back(read_name(m));
    if (family.match.empty()) map.required("match").fail("must list at least one GPU model substring");
  }
  const Field precisions = map.required("precisions");
  for (const auto& [precision, entry] : named_entries(precisions, "precision -> efficiencies"))
    family.by_precision[precision] = read_precision(entry, checked_precision(precision, entry));
  if (family.by_precision.empty()) precisions.fail("must give at least one precision");
  return family;
}

GpuReference read_gpu_reference(const Field& item) {
  MapReader map(item, {"match", "gpu"});
  GpuReference reference;
  reference.source = item.source();
  for (const Field& m : map.required("match").items()) reference.match.push_back(read_name(m));
  if (reference.match.empty()) map.required("match").fail("must list at least one substring of a GPU's name");
  reference.gpu = read_gpu_spec(map.required("gpu"));
  return reference;
}

CostModelTable read_table(const YAML::Node& root, const std::string& source, bool complete) {
  const Field document(root, source, "");
  if (document.is_null()) document.fail("is empty; expected families: [...]");
  MapReader top(document, {"families", "uncalibrated", "gpus", "launch_bound_below"});
  CostModelTable table;
  table.source = source;
  std::optional<Field> families = complete ? top.required("families") : top.optional("families");
  if (families) {
    for (const Field& item : families->items()) table.families.push_back(read_family(item, true));
    if (complete && table.families.empty()) families->fail("must list at least one GPU family");
  }
  if (auto uncalibrated = top.optional("uncalibrated")) table.uncalibrated = read_family(*uncalibrated, false);
  if (auto gpus = top.optional("gpus"))
    for (const Field& item : gpus->items()) table.gpus.push_back(read_gpu_reference(item));
  if (auto limit = top.optional("launch_bound_below")) table.launch_bound_below_s = read_time_s(*limit);
  return table;
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return name.find(p) != std::string::npos; });
}

}  // namespace

CostModelTable parse_cost_model_yaml(const std::string& yaml_text, const std::string& source, bool complete) {
  const YAML::Node root = load_yaml(yaml_text, source);
  try {
    return read_table(root, source, complete);
  } catch (const YAML::Exception& error) {
    throw InputError(source, "", std::string("unreadable YAML structure: ") + error.what());
  }
}

CostModelTable layer_cost_models(CostModelTable base, const CostModelTable& top) {
  CostModelTable out;
  out.source = top.source + " over " + base.source;
  out.families = top.families;
  for (CostModelFamily& family : base.families) {
    auto same = [&](const CostModelFamily& f) { return f.family == family.family; };
    if (std::none_of(top.families.begin(), top.families.end(), same)) out.families.push_back(std::move(family));
  }
  out.gpus = top.gpus;
  for (GpuReference& reference : base.gpus) {
    auto same = [&](const GpuReference& r) { return r.gpu.model == reference.gpu.model; };
    if (std::none_of(top.gpus.begin(), top.gpus.end(), same)) out.gpus.push_back(std::move(reference));
  }
  out.uncalibrated = top.uncalibrated ? top.uncalibrated : base.uncalibrated;
  out.launch_bound_below_s = top.launch_bound_below_s ? top.launch_bound_below_s : base.launch_bound_below_s;
  return out;
}

CostModelTable load_cost_model_table(const std::string& user_path) {
  const std::string shipped = source_tree_path("workloads/cost-model.yaml");
  CostModelTable table = parse_cost_model_yaml(read_text_file(shipped, "the shipped cost-model YAML file"), shipped);
  // A cost-model.yaml in the user's workloads folder adds to the shipped one, as its presets do.
  const std::vector<std::string> folders = preset_folders(PresetKind::workload);
  for (size_t f = folders.size() - 1; f-- > 0;) {  // every folder before the shipped one, lowest priority first
    const std::string path = folders[f] + "/cost-model.yaml";
    if (std::filesystem::is_regular_file(path))
      table = layer_cost_models(std::move(table), parse_cost_model_yaml(read_text_file(path, "a cost-model YAML file"), path, false));
  }
  if (!user_path.empty())
    table = layer_cost_models(std::move(table),
                              parse_cost_model_yaml(read_text_file(user_path, "a cost-model YAML file"), user_path, false));
  return table;
}

namespace {

// "A100 fp32 efficiencies (lstm, matmul) ... copied from V100 ..." for the efficiencies of
// `model` that were not measured on this family and that the caller uses (`kinds_used` empty:
// all of them; a kind without an entry of its own uses "default").
void note_copies(const std::string& family, const std::string& precision, const ComputeCostModel& model,
                 const std::set<std::string>& kinds_used, std::vector<std::string>& notes) {
  auto used = [&](const std::string& kind) { return kinds_used.empty() || kinds_used.count(kind) > 0; };
  bool default_used = kinds_used.empty();
  for (const std::string& kind : kinds_used) default_used = default_used || !model.per_kind.count(kind);
  std::map<std::string, std::vector<std::string>> kinds_by_origin;
  if (!model.copied_from.empty() && default_used) kinds_by_origin[model.copied_from].push_back("default");
  for (const auto& [kind, efficiency] : model.per_kind)
    if (!efficiency.copied_from.empty() && used(kind)) kinds_by_origin[efficiency.copied_from].push_back(kind);
  for (const auto& [origin, kinds] : kinds_by_origin) {
    const bool all = origin == model.copied_from && kinds.size() == model.per_kind.size() + 1;
    notes.push_back(family + " " + precision + " efficiencies (" + (all ? "all kinds" : join_words(kinds)) +
                    ") are not measured on this GPU: copied from " + origin);
  }
}

// The family's model for `precision`, or a related precision's (noted).
ComputeCostModel family_model(const CostModelFamily& family, const std::string& precision, const std::string& where,
                              const std::set<std::string>& kinds_used, std::vector<std::string>& notes) {
  if (auto it = family.by_precision.find(precision); it != family.by_precision.end()) {
    note_copies(family.family, precision, it->second, kinds_used, notes);
    return it->second;
  }
  for (const std::string& related : related_precisions(precision)) {
    auto it = family.by_precision.find(related);
    if (it == family.by_precision.end()) continue;
    ComputeCostModel model = it->second;
    // The related entry's efficiencies, against this precision's own peak (fp32's TF32 peak
    // stays for tf32, which is what it already names).
    if (precision != "tf32") model.precision = precision;
    notes.push_back(family.family + " has no " + precision + " efficiencies: " + related + "'s are used");
    note_copies(family.family, related, model, kinds_used, notes);
    return model;
  }
  std::vector<std::string> have;
  for (const auto& [name, model] : family.by_precision) have.push_back(name);
  throw InputError(family.source, where,
                   "no efficiencies for precision '" + precision + "' on " + family.family + "; calibrated: " + join_words(have));
}

bool has_precision_or_related(const CostModelFamily& family, const std::string& precision) {
  if (family.by_precision.count(precision)) return true;
  for (const std::string& related : related_precisions(precision))
    if (family.by_precision.count(related)) return true;
  return false;
}

// "V100, A100, H100, H200": what the table's families match in a GPU model.
std::string known_models(const CostModelTable& table) {
  std::vector<std::string> names;
  for (const CostModelFamily& family : table.families) names.insert(names.end(), family.match.begin(), family.match.end());
  return join_words(names);
}

// "GPU 'B200-SXM' (node.gpu.model in hgx-b200.yaml)": where the model was named, when a file did.
std::string gpu_and_origin(const GpuSpec& gpu) {
  return "GPU '" + gpu.model + "'" + (gpu.source.empty() ? "" : " (" + gpu.model_field + " in " + gpu.source + ")");
}

// A GPU no family matches and that `uncalibrated` cannot price either: the model is most likely
// what is wrong (a typo, a GPU named differently), so the error names the file and field that
// gave it, and the models the families know; without such a file, the table's `uncalibrated`.
[[noreturn]] void throw_unpriced_gpu(const CostModelTable& table, const GpuSpec& gpu, const std::string& problem) {
  const std::string message = "GPU model '" + gpu.model + "' matches no cost-model family of " + table.source +
                              " (known models: " + known_models(table) + ") and " + problem;
  if (gpu.source.empty()) throw InputError(table.source, "uncalibrated", message);
  throw InputError(gpu.source, gpu.model_field, message);
}

}  // namespace

std::string family_of(const CostModelTable& table, const GpuSpec& gpu) {
  for (const CostModelFamily& family : table.families)
    if (matches_any(family.match, gpu.model)) return family.family;
  return "";
}

ResolvedCostModel resolve_cost_model(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision,
                                     const std::set<std::string>& kinds_used) {
  ResolvedCostModel resolved;
  for (const CostModelFamily& family : table.families) {
    if (!matches_any(family.match, gpu.model)) continue;
    resolved.family = family.family;
    resolved.model = family_model(family, precision, "families (" + family.family + ").precisions", kinds_used,
                                  resolved.notes);
    break;
  }
  if (resolved.family.empty()) {
    if (!table.uncalibrated) throw_unpriced_gpu(table, gpu, "the table gives no `uncalibrated` default");
    if (!has_precision_or_related(*table.uncalibrated, precision))
      throw_unpriced_gpu(table, gpu, "its `uncalibrated` default has no " + precision + " efficiencies");
    resolved.notes.push_back(gpu_and_origin(gpu) + " is uncalibrated: no cost-model family matches it (known models: " +
                             known_models(table) + "), so it runs with the default efficiencies (`uncalibrated` of " +
                             table.source + ") against its platform's peaks");
    resolved.model = family_model(*table.uncalibrated, precision, "uncalibrated.precisions", kinds_used, resolved.notes);
  }
  if (!gpu.peak_flops_per_s.count(resolved.model.precision))
    resolved.notes.push_back("the platform gives " + gpu.model + " no " + resolved.model.precision +
                             " peak: a related precision's is used");
  return resolved;
}

ComputeCostModel compute_cost_model_for(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision) {
  return resolve_cost_model(table, gpu, precision).model;
}

const GpuReference* find_gpu_reference(const CostModelTable& table, const std::string& traced_gpu) {
  for (const GpuReference& reference : table.gpus)
    if (matches_any(reference.match, traced_gpu)) return &reference;
  return nullptr;
}

double launch_bound_below_s(const CostModelTable& table) {
  return table.launch_bound_below_s.value_or(kDefaultLaunchBoundBelow_s);
}

}  // namespace scalecast
