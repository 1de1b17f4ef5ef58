// Runs a computation in a forked child process and returns its result: SimGrid's engine is a
// per-process singleton, so a test that compares two simulations runs one of them this way.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <vector>

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

// The same for a computation that returns several numbers (at most 4,096).
inline std::vector<double> in_child_process_values(const std::function<std::vector<double>()>& compute) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::vector<double> values = compute();
    values.resize(std::min<size_t>(values.size(), 4096));
    const long count = static_cast<long>(values.size());
    (void)!::write(fds[1], &count, sizeof count);
    (void)!::write(fds[1], values.data(), values.size() * sizeof(double));
    ::_exit(0);
  }
  ::close(fds[1]);
  long count = -1;
  EXPECT_EQ(::read(fds[0], &count, sizeof count), static_cast<ssize_t>(sizeof count));
  std::vector<double> values(count > 0 ? count : 0);
  size_t got = 0;
  while (got < values.size() * sizeof(double)) {
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(values.data()) + got, values.size() * sizeof(double) - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  EXPECT_EQ(got, values.size() * sizeof(double));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child simulation failed";
  return values;
}

}  // namespace scalecast::testing
