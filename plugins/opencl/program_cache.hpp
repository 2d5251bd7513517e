// SPDX-License-Identifier: Apache-2.0
#pragma once
// Programs compiled once per context and build options, then reused (clBuildProgram
// costs milliseconds to seconds; PoCL also keeps binaries in POCL_CACHE_DIR across runs).
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "opencl.hpp"

namespace hetero::opencl {

/// The programs of one cl_context. Thread-safe; programs live as long as the cache.
class ProgramCache {
 public:
  ProgramCache(cl_context context, std::vector<cl_device_id> devices);
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  /// The program made of the shared prelude (cl/common.cl) and `source`, built with
  /// `options`. `name` names it in errors. Throws hetero::Error with the build log when
  /// compilation fails.
  cl_program get(const std::string& name, const char* source, const std::string& options);

 private:
  cl_context context_;
  std::vector<cl_device_id> devices_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, cl_program> programs_;
};

}  // namespace hetero::opencl
