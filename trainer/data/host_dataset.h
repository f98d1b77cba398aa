// Fashion-MNIST read once per host: rank 0 decompresses the training and test
// sets into its shared block and every rank reads them there, where each rank
// used to decompress and hold its own copy (0.4 s of CPU and 55 MB a rank:
// with 4 ranks on 2 cores, a tenth of the main job's wall time). Ranks on
// several hosts, or without shared memory, each read their own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "data/dataset.h"
#include "parallel/collective.h"

namespace dlp::fmnist {

// The samples the trainer reads, wherever they are held.
struct Samples {
  int count = 0;
  const uint8_t* pixels = nullptr;  // count * kImageSize
  const int32_t* labels = nullptr;  // count
};

struct HostDatasets {
  Samples train, test;
  bool read_once = false;  // rank 0 read them for every rank on this host
  // What the samples point into: this rank's own sets, or the shared block.
  Dataset own_train, own_test;
  std::unique_ptr<SharedBlocks> shared;
};

// As LoadDataset for "train" and "t10k". When rank 0 cannot read them, every
// rank returns rank 0's error (the others prefixed "rank 0 could not read the
// dataset: ").
absl::StatusOr<HostDatasets> LoadDatasetsOncePerHost(Collective& group, const std::string& dir,
                                                     int limit_train, int limit_test);

}  // namespace dlp::fmnist
