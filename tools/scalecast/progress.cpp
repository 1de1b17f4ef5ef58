#include "tools/scalecast/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace scalecast::cli {

Progress::Progress(std::string command, bool quiet) : command_(std::move(command)) {
  if (!quiet && ::isatty(STDERR_FILENO)) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Progress::phase(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_ = what;
}

void Progress::run() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  bool drawn = false;
  // Nothing is drawn for commands that end within the first second.
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "\r\033[K%s: %s (%.0f s)", command_.c_str(), phase_.c_str(), elapsed_s);
    std::fflush(stderr);
    drawn = true;
  }
  if (drawn) std::fprintf(stderr, "\r\033[K");
}

}  // namespace scalecast::cli
