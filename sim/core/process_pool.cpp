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

}  // namespace

void run_in_processes(int count, int parallel, const std::function<std::string(int)>& job,
                      const std::function<void(int, const JobOutcome&)>& on_done) {
  if (parallel < 1) parallel = 1;
  std::map<int, Running> running;  // job index -> child
  int next = 0;
  std::cout.flush();
  std::cerr.flush();
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < parallel) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
      pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
        for (auto& [i, child] : running) ::close(child.fd);
        run_child(next, fds[1], job);
      }
      ::close(fds[1]);
      running[next] = {pid, fds[0], {}};
      ++next;
    }
    std::vector<pollfd> polled;
    std::vector<int> indices;
    for (auto& [i, child] : running) {
      polled.push_back({child.fd, POLLIN, 0});
      indices.push_back(i);
    }
    if (::poll(polled.data(), polled.size(), -1) < 0) {
      if (errno == EINTR) continue;
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
      // End of output: the child has finished (or died).
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
      const int index = indices[p];
      running.erase(index);
      on_done(index, outcome);
    }
  }
}

}  // namespace scalecast
