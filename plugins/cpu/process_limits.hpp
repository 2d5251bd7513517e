// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process's own memory limits, which refuse an allocation before the machine's memory
// runs out: RLIMIT_AS (address space, `ulimit -v`, `prlimit --as`) and RLIMIT_DATA (data
// segments, private mappings included since Linux 4.7). An out-of-memory error under such a
// limit would otherwise quote the host's free memory only (gigabytes free) and mislead.
#include <string>

namespace hetero::cpu {

/// "" when neither limit is set; else, for each that is, e.g. "the process's address-space
/// limit (RLIMIT_AS) is 2000000000 bytes, 1372823552 of them mapped" (the mapped figure from
/// /proc/self/statm, omitted where that cannot be read). Never throws an hetero error;
/// std::bad_alloc from the string only. Thread-safe (reads only).
std::string process_memory_limits();

}  // namespace hetero::cpu
