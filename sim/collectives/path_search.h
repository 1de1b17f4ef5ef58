// Depth-first search for a path through a set of GPUs, with an explicit stack rather than
// recursion: the searches run on SimGrid actors, whose stacks are 128 KiB, and a path can be as
// long as a node has GPUs (up to 1,024). Used for NCCL-like rings on NVLink meshes.
#pragma once

#include <set>
#include <vector>

namespace scalecast {

// From `start`, extends the path one GPU at a time over `next_of(at, used)` (the candidates for
// the next GPU, the preferred one last) until it holds `length` GPUs and `accept(path)` says yes;
// backtracks on dead ends. Gives up after `budget` moves and returns an empty path.
template <typename NextOf, typename Accept>
std::vector<int> depth_first_path(int start, size_t length, NextOf next_of, Accept accept, long budget) {
  std::vector<int> path = {start};
  std::set<int> used = {start};
  std::vector<std::vector<int>> options = {next_of(start, used)};  // untried next GPUs, per depth
  for (; budget > 0 && !options.empty(); --budget) {
    if (path.size() == length) {
      if (accept(path)) return path;
    } else if (!options.back().empty()) {
      const int next = options.back().back();
      options.back().pop_back();
      path.push_back(next);
      used.insert(next);
      options.push_back(next_of(next, used));
      continue;
    }
    if (path.size() == 1) break;  // dead end at the start: no path
    used.erase(path.back());
    path.pop_back();
    options.pop_back();
  }
  return {};
}

}  // namespace scalecast
