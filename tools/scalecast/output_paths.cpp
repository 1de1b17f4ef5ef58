#include "tools/scalecast/output_paths.h"

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"

namespace scalecast::cli {

void check_output_path(const std::string& path, const std::string& option) {
  try {
    checked_output_path(path);
  } catch (const InputError& error) {
    throw InputError(path, option, error.problem());
  }
}

}  // namespace scalecast::cli
