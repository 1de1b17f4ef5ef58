// Progress of a long command on stderr: the phase it is in and the seconds it has taken,
// redrawn once a second on one line. Only when stderr is a terminal (logs and pipes stay clean)
// and not --quiet; the line is erased when the command ends.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace scalecast::cli {

class Progress {
 public:
  Progress(std::string command, bool quiet);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void phase(const std::string& what);  // "placing", "simulating"

 private:
  void run();

  std::string command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string phase_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace scalecast::cli
