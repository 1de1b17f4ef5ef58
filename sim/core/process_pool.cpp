#include "sim/core/process_pool.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>
#include <vector>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

void write_all(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

[[noreturn]] void run_child(int index, int fd, const std::function<std::string(int)>& job) {
  int code = 0;
  std::string text;
  try {
    text = job(index);
  } catch (const InputError& e) {
    code = 2;
    text = e.what();
  } catch (const RequestError& e) {
    code = 2;
    text = e.what();
  } catch (const std::exception& e) {
    code = 1;
    text = e.what();
  } catch (...) {
    code = 1;
    text = "unknown failure";
  }
  write_all(fd, text);
  ::close(fd);
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);  // no atexit handlers: they belong to the parent
}

struct Running {
  pid_t pid = 0;
  int fd = -1;
  std::string output;
};


// Forks job `index` into a child writing to a pipe; the parent's end of the pipe is returned in
// the Running entry. The child closes the other children's pipes, so each pipe's end of file
// means its own child has finished.
Running start_child(int index, const std::map<int, Running>& running, const std::function<std::string(int)>& job) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    for (auto& [i, child] : running) ::close(child.fd);
    run_child(index, fds[1], job);
  }
  ::close(fds[1]);
  return {pid, fds[0], {}};
}

// Waits for a finished child (its pipe closed) and says how it ended.
JobOutcome reap(Running& child) {
  ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  JobOutcome outcome;
  outcome.output = std::move(child.output);
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else {
    outcome.exit_code = 1;
    outcome.output = "worker process killed by signal " + std::to_string(WTERMSIG(status)) +
                     (WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
  }
  return outcome;
}

// Reads what the running children wrote (blocking until one of them writes or ends); returns
// the index of every child that has ended, with its outcome, in the order found.
std::vector<std::pair<int, JobOutcome>> collect_finished(std::map<int, Running>& running) {
  std::vector<pollfd> polled;
  std::vector<int> indices;
  for (auto& [i, child] : running) {
    polled.push_back({child.fd, POLLIN, 0});
    indices.push_back(i);
  }
  std::vector<std::pair<int, JobOutcome>> finished;
  if (::poll(polled.data(), polled.size(), -1) < 0) {
    if (errno == EINTR) return finished;
    throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
  for (size_t p = 0; p < polled.size(); ++p) {
    if (!(polled[p].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Running& child = running[indices[p]];
    char buffer[65536];
    ssize_t n = ::read(child.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      child.output.append(buffer, static_cast<size_t>(n));
      continue;
    }
    finished.emplace_back(indices[p], reap(child));  // end of output: the child has finished (or died)
    running.erase(indices[p]);
  }
  return finished;
}

}  // namespace

void run_in_processes(int count, int parallel, const std::function<std::string(int)>& job,
                      const std::function<void(int, const JobOutcome&)>& on_done) {
  run_in_processes(count, parallel, job, on_done, [](int) { return true; });
}

void run_in_processes(int count, int parallel, const std::function<std::string(int)>& job,
                      const std::function<void(int, const JobOutcome&)>& on_done,
                      const std::function<bool(int)>& ready) {
  if (parallel < 1) parallel = 1;
  std::map<int, Running> running;  // job index -> child
  std::vector<bool> started(count, false);
  std::cout.flush();
  std::cerr.flush();
  while (true) {
    // Fill the free slots with the lowest-numbered jobs that may start now.
    for (int i = 0; i < count && static_cast<int>(running.size()) < parallel; ++i) {
      if (started[i] || !ready(i)) continue;
      running[i] = start_child(i, running, job);
      started[i] = true;
    }
    if (running.empty()) return;  // every job ran, or none of those left may start
    for (auto& [index, outcome] : collect_finished(running)) on_done(index, outcome);
  }
}

}  // namespace scalecast
