// Where this build put the capture library and where it found CUPTI; compiled with the paths as
// definitions (gpu_trace/CMakeLists.txt), so it lives apart from the launcher's logic.
#include <cstdlib>

#include "gpu_trace/launcher.h"

#ifndef SCALECAST_GPU_TRACE_LIBRARY
#define SCALECAST_GPU_TRACE_LIBRARY ""
#endif
#ifndef SCALECAST_CUPTI_LIBRARY
#define SCALECAST_CUPTI_LIBRARY ""
#endif

namespace scalecast::gpu_trace {

CaptureLibraries default_capture_libraries() {
  CaptureLibraries libraries{SCALECAST_GPU_TRACE_LIBRARY, SCALECAST_CUPTI_LIBRARY};
  if (const char* path = std::getenv("SCALECAST_GPU_TRACE_LIBRARY"); path && *path) libraries.gpu_trace = path;
  if (const char* path = std::getenv("SCALECAST_CUPTI_LIBRARY"); path && *path) libraries.cupti = path;
  return libraries;
}

}  // namespace scalecast::gpu_trace
