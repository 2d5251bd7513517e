// SPDX-License-Identifier: Apache-2.0
#pragma once
// open_first: the one way the cuda plugin opens the CUDA libraries it loads at first use
// (cuBLAS, cuDNN) through Boost.DLL.
#include <initializer_list>
#include <string>

#include <boost/dll/shared_library.hpp>

namespace hetero::cuda {

/// The first of `candidates` that loads: a path (with a '/') is opened as given, a name
/// (a soname) is looked up on the loader's usual path (LD_LIBRARY_PATH, the ld.so cache).
/// Symbols are bound lazily. Where none loads, returns an unloaded library and appends
/// "candidate: loader message" for each to `tried` ("; "-separated). Never throws on a
/// failed load.
boost::dll::shared_library open_first(std::initializer_list<const char*> candidates,
                                      std::string& tried);

}  // namespace hetero::cuda
