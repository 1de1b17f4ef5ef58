#include "sim/core/preset_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace scalecast {

namespace fs = std::filesystem;

std::string source_tree_path(const std::string& relative) { return std::string(SCALECAST_SOURCE_DIR) + "/" + relative; }

const char* preset_kind_name(PresetKind kind) { return kind == PresetKind::platform ? "platform" : "workload"; }

const char* preset_environment_variable(PresetKind kind) {
  return kind == PresetKind::platform ? "SCALECAST_PLATFORMS_DIR" : "SCALECAST_WORKLOADS_DIR";
}

std::vector<std::string> preset_folders(PresetKind kind) {
  std::vector<std::string> folders;
  const char* user_folder = std::getenv(preset_environment_variable(kind));
  if (user_folder && *user_folder) folders.push_back(user_folder);
  folders.push_back(source_tree_path(kind == PresetKind::platform ? "platforms" : "workloads"));
  return folders;
}

std::optional<std::string> find_preset_file(PresetKind kind, const std::string& name) {
  std::error_code error;
  for (const std::string& folder : preset_folders(kind)) {
    const fs::path path = fs::path(folder) / (name + ".yaml");
    if (fs::is_regular_file(path, error)) return path.string();
  }
  return std::nullopt;
}

std::vector<std::string> preset_names(PresetKind kind, const std::string& exclude_prefix) {
  std::set<std::string> names;
  for (const std::string& folder : preset_folders(kind)) {
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
      if (it->path().extension() != ".yaml") continue;
      const std::string stem = it->path().stem().string();
      if (exclude_prefix.empty() || stem.rfind(exclude_prefix, 0) != 0) names.insert(stem);
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace scalecast
