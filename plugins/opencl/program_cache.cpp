// SPDX-License-Identifier: Apache-2.0
#include "program_cache.hpp"

#include <hetero/error.hpp>

#include "cl_sources.hpp"
#include "opencl_check.hpp"

namespace hetero::opencl {
namespace {

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return {};
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

ProgramCache::ProgramCache(cl_context context, std::vector<cl_device_id> devices)
    : context_(context), devices_(std::move(devices)) {}

ProgramCache::~ProgramCache() {
  for (auto& [key, program] : programs_) clReleaseProgram(program);
}

cl_program ProgramCache::get(const std::string& name, const char* source,
                             const std::string& options) {
  std::lock_guard lock(mutex_);
  const auto key = std::make_pair(name, options);
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  const char* parts[] = {kCommonSource, source};
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 2, parts, nullptr, &status);
  HETERO_CL_CHECK(status);
  const std::string all_options = "-cl-std=CL1.2 " + options;
  status = clBuildProgram(program, static_cast<cl_uint>(devices_.size()), devices_.data(),
                          all_options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = devices_.empty() ? std::string() : build_log(program, devices_.front());
    clReleaseProgram(program);
    throw Error("opencl: building program '" + name + "' (" + all_options +
                ") failed: " + status_name(status) + (log.empty() ? "" : "\n" + log));
  }
  programs_.emplace(key, program);
  return program;
}

}  // namespace hetero::opencl
