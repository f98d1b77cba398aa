// Waits on rendezvous-store keys from a thread of its own, so that a poll loop
// can watch child pipes, signals and the store at once: every value that
// arrives is queued and announced by a byte on fd().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace dlp::launch {

class StoreWatcher {
 public:
  // Gets key(1), key(2), ... in turn on `store` (its own connection) until a
  // value equals `last` (or, with `last` empty, after the first key). A store
  // that fails (its host is gone) queues "error: <message>" and ends the watch.
  StoreWatcher(std::unique_ptr<runtime::RendezvousStore> store, std::function<std::string(int)> key,
               std::string last);
  // Does not wait for the thread: it ends with its last key or its connection.
  ~StoreWatcher();
  StoreWatcher(const StoreWatcher&) = delete;
  StoreWatcher& operator=(const StoreWatcher&) = delete;

  int fd() const;
  // The values that arrived since the last call, in order; drains fd().
  std::vector<std::string> Take();

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace dlp::launch
