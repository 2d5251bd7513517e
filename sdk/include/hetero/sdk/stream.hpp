// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file stream.hpp
/// hetero::Stream and hetero::Event — in-order queues of work on one device (as CUDA
/// streams and events): synchronize() blocks the host, wait(event) orders without blocking.
#include <memory>

namespace hetero {

/// A point in a stream's work. Created by Stream::record. Thread-safe.
class Event {
 public:
  virtual ~Event() = default;
  /// Blocks the calling thread until the recorded work has completed. Throws hetero::Error
  /// if that work failed.
  virtual void synchronize() = 0;
  /// True when the recorded work has completed. Never blocks.
  virtual bool query() = 0;
};

/// In-order queue of work on one device. Kernels and copies given a Stream are queued
/// and may return before they run (Capabilities::async_copy); work runs in the order
/// queued. Methods may be called from any thread; calls are serialised by the stream.
class Stream {
 public:
  virtual ~Stream() = default;
  /// Device index (within the backend) this stream runs on.
  virtual int device() const noexcept = 0;
  /// Blocks the host until all work queued so far has completed. Throws hetero::Error
  /// if queued work failed.
  virtual void synchronize() = 0;
  /// Records an event after the work queued so far. Ownership passes to the caller.
  virtual std::unique_ptr<Event> record() = 0;
  /// Makes work queued after this call wait for `event` (which may come from another
  /// stream or device of the same backend). Does not block the host.
  virtual void wait(Event& event) = 0;
};

}  // namespace hetero
