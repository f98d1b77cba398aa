// For the GPU tests (built only with CUDA): whether this machine has a CUDA
// device, asked in a child process so that a failed CUDA initialisation stays
// there.
#pragma once

#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dlp::testing {

inline bool HasCudaDevice() {
  pid_t pid = fork();
  if (pid == 0) {
    int n = 0;
    _exit(cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace dlp::testing
