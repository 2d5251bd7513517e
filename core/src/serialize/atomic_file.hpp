// SPDX-License-Identifier: Apache-2.0
#pragma once
// AtomicFile: writes a file so that readers see either the old or the complete new
// content. The bytes go to a fresh temporary file beside the target (mkstemp, named
// .<file>.tmp.<pid>.XXXXXX), which commit() flushes (fsync), closes and renames over the
// target; the destructor removes the temporary when commit() was not reached, and the next
// writer of that file removes those of killed processes. A symlink is written through; an
// existing file keeps its mode and must be writable; a new one gets 0666 less the umask.
// Every OS failure throws hetero::Error naming the path and strerror. Not thread-safe; one
// writer per object.
#include <cstddef>
#include <filesystem>
#include <string>

namespace hetero::detail {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `bytes` bytes.
  void write(const void* data, std::size_t bytes);
  /// fsync, close, rename over the target, fsync the directory.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::filesystem::path target_;
  std::string temp_;
  int fd_ = -1;
};

}  // namespace hetero::detail
