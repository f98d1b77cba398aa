// Open MPI's MPI_Allreduce on float32, out of place; run under mpirun.
#include <mpi.h>

#include <vector>

#include "bench_common.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench::Args args = bench::ParseArgs(argc, argv);
  size_t total_wrong = 0;
  for (size_t bytes : bench::Sizes(args)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> send(count), recv(count);
    for (size_t i = 0; i < count; ++i) send[i] = bench::Input(rank, i);
    std::vector<double> times;
    int iters = bench::Iterations(args, bytes);
    for (int it = 0; it < iters + 1; ++it) {  // the first is a warm-up
      MPI_Barrier(MPI_COMM_WORLD);
      double start = MPI_Wtime();
      MPI_Allreduce(send.data(), recv.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
      double t = MPI_Wtime() - start;
      double slowest;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (it > 0) times.push_back(slowest);
    }
    unsigned long long wrong = bench::CountWrong(recv.data(), count, size), all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total_wrong += all_wrong;
    if (rank == 0) bench::PrintRow("mpi", size, bytes, bench::Median(times), all_wrong);
  }
  MPI_Finalize();
  return total_wrong == 0 ? 0 : 1;
}
