// Opens the library given as argv[2] with RTLD_LOCAL and runs its NCCL steps as rank RANK of
// argv[1] ranks (see fake_plugin.cpp for why).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  void* plugin = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    std::fprintf(stderr, "fake_nccl_plugin_job: %s\n", dlerror());
    return 2;
  }
  auto* run_steps = reinterpret_cast<int (*)(int, int)>(dlsym(plugin, "run_steps"));
  const char* rank = std::getenv("RANK");
  return run_steps ? run_steps(std::atoi(argv[1]), rank ? std::atoi(rank) : 0) : 2;
}
