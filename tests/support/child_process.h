// Runs a computation in a forked child process and returns its result: SimGrid's engine is a
// per-process singleton, so a test that compares two simulations runs one of them this way.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace scalecast::testing {

inline double in_child_process(const std::function<double()>& compute) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const double value = compute();
    (void)!::write(fds[1], &value, sizeof value);
    ::_exit(0);
  }
  ::close(fds[1]);
  double value = -1;
  EXPECT_EQ(::read(fds[0], &value, sizeof value), static_cast<ssize_t>(sizeof value));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child simulation failed";
  return value;
}

}  // namespace scalecast::testing
