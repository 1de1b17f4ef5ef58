// scalecast: the command users run. `import` runs in this process; every other subcommand (and
// --help, --version) runs in scalecast-sim, exec'd from this binary's folder with the same
// arguments, so exit codes, output and signals are that binary's own.
//
// Why two binaries: Debian's libsimgrid needs ns-3's libraries, and loading them costs about
// 25 MiB of resident memory (relocations and static constructors) before main. A process that
// only converts a trace has no use for SimGrid or CBC, and the import's peak memory is one of
// the README's targets (58 -> 26 MiB on the 53 MB V100 trace). Invariant: this binary is
// linked --as-needed and loads neither SimGrid nor CBC (tests/cli/front_test.cpp asks the
// dynamic loader).
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/scalecast/guarded_run.h"
#include "tools/scalecast/subcommands.h"

namespace {

// scalecast-sim in the folder this binary was started from (/proc/self/exe: the real file,
// whatever PATH or symlink led to it).
std::string simulator_binary() {
  char self[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return "scalecast-sim";
  const std::string path(self, static_cast<size_t>(length));
  return path.substr(0, path.rfind('/') + 1) + "scalecast-sim";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "import"))
    return scalecast::cli::run_guarded("import", scalecast::cli::run_import,
                                       std::vector<std::string>(argv + 2, argv + argc));
  const std::string simulator = simulator_binary();
  execv(simulator.c_str(), argv);
  std::cerr << "scalecast: internal error: cannot run " << simulator << ": " << std::strerror(errno)
            << " (every subcommand but import runs in scalecast-sim, built beside scalecast)\n";
  return 1;
}
