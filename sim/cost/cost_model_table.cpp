#include "sim/cost/cost_model_table.h"

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/core/yaml_input.h"
#include "sim/core/preset_paths.h"

namespace scalecast {

namespace {

using namespace yaml;

const std::vector<std::string> kEfficiencyFields = {"compute_efficiency", "memory_efficiency", "launch_overhead"};

double read_fraction(const Field& field) {
  const double value = read_number(field);
  if (value <= 0 || value > 1) field.fail("an efficiency is an achieved fraction of the peak: it must be in (0, 1]");
  return value;
}

double read_overhead_s(const Field& field) {
  const std::string text = read_scalar(field);
  if (text == "0") return 0;
  auto value = parse_seconds(text);
  if (!value || *value < 0) field.fail("expected a time such as 5us, got '" + text + "'");
  return *value;
}

// Fields not given keep the values of `base` (a kind inherits its precision's defaults).
KindEfficiency read_efficiency(const Field& field, KindEfficiency base) {
  MapReader map(field, kEfficiencyFields);
  if (auto f = map.optional("compute_efficiency")) base.compute_efficiency = read_fraction(*f);
  if (auto f = map.optional("memory_efficiency")) base.memory_efficiency = read_fraction(*f);
  if (auto f = map.optional("launch_overhead")) base.launch_overhead_s = read_overhead_s(*f);
  return base;
}

ComputeCostModel read_precision(const Field& field, const std::string& precision) {
  MapReader map(field, {"default", "kinds", "peak"});
  const KindEfficiency defaults = read_efficiency(map.required("default"), KindEfficiency{});
  ComputeCostModel model;
  // Which of the GPU's peaks this precision runs at: fp32 training on A100/H100 runs its
  // matrix products on TF32 tensor cores (the frameworks' default), so `peak: tf32` there.
  model.precision = precision;
  if (auto peak = map.optional("peak")) model.precision = read_name(*peak);
  model.compute_efficiency = defaults.compute_efficiency;
  model.memory_efficiency = defaults.memory_efficiency;
  model.launch_overhead_s = defaults.launch_overhead_s;
  if (auto kinds = map.optional("kinds")) {
    if (!kinds->node().IsMap()) kinds->fail("expected a mapping of operator kinds, got " + kinds->kind());
    for (const auto& pair : kinds->node()) {
      const std::string kind = pair.first.Scalar();
      model.per_kind[kind] = read_efficiency(Field(pair.second, field.source(), kinds->path() + "." + kind), defaults);
    }
  }
  return model;
}

CostModelTable read_table(const YAML::Node& root, const std::string& source) {
  const Field document(root, source, "");
  if (document.is_null()) document.fail("is empty; expected families: [...]");
  MapReader top(document, {"families"});
  CostModelTable table;
  table.source = source;
  for (const Field& item : top.required("families").items()) {
    MapReader map(item, {"family", "match", "precisions"});
    CostModelFamily family;
    family.family = read_name(map.required("family"));
    for (const Field& m : map.required("match").items()) family.match.push_back(read_name(m));
    if (family.match.empty()) map.required("match").fail("must list at least one GPU model substring");
    const Field precisions = map.required("precisions");
    if (!precisions.node().IsMap()) precisions.fail("expected a mapping precision -> efficiencies, got " + precisions.kind());
    for (const auto& pair : precisions.node()) {
      const std::string precision = pair.first.Scalar();
      family.by_precision[precision] =
          read_precision(Field(pair.second, source, precisions.path() + "." + precision), precision);
    }
    if (family.by_precision.empty()) precisions.fail("must give at least one precision");
    table.families.push_back(std::move(family));
  }
  if (table.families.empty()) top.required("families").fail("must list at least one GPU family");
  return table;
}

}  // namespace

CostModelTable parse_cost_model_yaml(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_yaml(yaml_text, source);
  try {
    return read_table(root, source);
  } catch (const YAML::Exception& error) {
    throw InputError(source, "", std::string("unreadable YAML structure: ") + error.what());
  }
}

CostModelTable load_cost_model_table(const std::string& path) {
  const std::string file = path.empty() ? find_preset_file(PresetKind::workload, "cost-model")
                                                   .value_or(source_tree_path("workloads/cost-model.yaml"))
                                       : path;
  return parse_cost_model_yaml(read_text_file(file, "a cost-model YAML file"), file);
}

ComputeCostModel compute_cost_model_for(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision) {
  std::vector<std::string> known;
  for (size_t f = 0; f < table.families.size(); ++f) {
    const CostModelFamily& family = table.families[f];
    known.push_back(family.family);
    bool matches = false;
    for (const std::string& m : family.match) matches = matches || gpu.model.find(m) != std::string::npos;
    if (!matches) continue;
    auto it = family.by_precision.find(precision);
    if (it == family.by_precision.end()) {
      std::vector<std::string> have;
      for (const auto& [name, model] : family.by_precision) have.push_back(name);
      throw InputError(table.source, "families[" + std::to_string(f) + "].precisions",
                       "no efficiencies for precision '" + precision + "' on " + family.family +
                           "; calibrated: " + join_words(have));
    }
    return it->second;
  }
  throw InputError(table.source, "families",
                   "no family matches GPU model '" + gpu.model + "'; calibrated families: " + join_words(known));
}

}  // namespace scalecast
