// Where scalecast finds the data it ships: presets (platforms/, workloads/), the cost model and
// the validation cases live in the source tree the binary was built from. A user adds folders
// of their own with $SCALECAST_PLATFORMS_DIR or $SCALECAST_WORKLOADS_DIR: those are searched
// first, and the shipped presets stay available behind them (a user's file of the same name
// wins).
//
// Only preset_paths.cpp sees the source tree's path (a compile definition), so moving the tree
// rebuilds one file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalecast {

enum class PresetKind { platform, workload };

// "<source tree>/<relative>".
std::string source_tree_path(const std::string& relative);

// The folders searched for presets of a kind, in order: the environment variable's folder
// (when set and non-empty), then the source tree's platforms/ or workloads/.
std::vector<std::string> preset_folders(PresetKind kind);

// The file "<name>.yaml" in the first folder that has it.
std::optional<std::string> find_preset_file(PresetKind kind, const std::string& name);

// Every preset name (stem of a .yaml file) over all folders, sorted, each once; names that
// `exclude_prefix` starts are left out (workloads/ also holds cost-model.yaml).
std::vector<std::string> preset_names(PresetKind kind, const std::string& exclude_prefix = "");

// "platform" or "workload", and the environment variable that adds a folder.
const char* preset_kind_name(PresetKind kind);
const char* preset_environment_variable(PresetKind kind);

}  // namespace scalecast
