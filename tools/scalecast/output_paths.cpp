#include "tools/scalecast/output_paths.h"

#include <filesystem>

#include "sim/core/input_error.h"

namespace scalecast::cli {

void check_output_path(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code error;
  if (!fs::is_directory(parent, error))
    throw InputError(path, option, "cannot be written: folder '" + parent.string() + "' does not exist");
  if (fs::is_directory(path, error)) throw InputError(path, option, "is a directory, expected a file path");
}

}  // namespace scalecast::cli
