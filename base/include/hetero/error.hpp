// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file error.hpp
/// The typed errors of hetero. Every error a caller can cause derives from
/// hetero::Error; messages name the offending values. Header-only and exported, so a
/// plugin may throw them and the core catch them by type.
#include <stdexcept>
#include <string>

#include <hetero/export.hpp>

namespace hetero {

/// Base of every error hetero throws for a caller's mistake or an unavailable resource.
class HETERO_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Malformed device text ("cuda:-1", "gpu:x", "") or a device index that does not exist.
class HETERO_API InvalidDeviceError : public Error {
 public:
  using Error::Error;
};

/// Operands of one operation live on different devices (the same-device rule, as
/// PyTorch's "Expected all tensors to be on the same device"). Names both devices and the op.
class HETERO_API DeviceMismatchError : public Error {
 public:
  using Error::Error;
};

/// Incompatible or invalid shapes; the message shows both shapes.
class HETERO_API ShapeError : public Error {
 public:
  using Error::Error;
};

/// A dtype an operation does not accept (e.g. matmul of int64).
class HETERO_API DTypeError : public Error {
 public:
  using Error::Error;
};

/// An argument whose value is outside what the operation accepts (a negative tolerance,
/// an empty list where tensors are needed, no bound given to clamp), as Python's ValueError.
class HETERO_API ValueError : public Error {
 public:
  using Error::Error;
};

/// An element or dimension index out of range.
class HETERO_API IndexError : public Error {
 public:
  using Error::Error;
};

/// An allocation the device cannot satisfy; names device, requested and free bytes.
/// The device stays usable after it.
class HETERO_API OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

/// A device whose backend is not loaded, has no such device, or was lost; carries the reason.
class HETERO_API DeviceUnavailableError : public Error {
 public:
  using Error::Error;
};

/// A plugin file that could not be loaded; names the path and the reason.
class HETERO_API PluginLoadError : public Error {
 public:
  using Error::Error;
};

/// A malformed file (e.g. a parameter file); names the file and the defect.
class HETERO_API FormatError : public Error {
 public:
  using Error::Error;
};

/// An op the device's backend does not implement for the dtype (Backend::supports said no,
/// or the plugin was built for an older interface minor that lacks the op), as torch's
/// NotImplementedError "... not implemented for 'Half'". Names the op, the dtype, the device
/// and the backend.
class HETERO_API NotImplementedError : public Error {
 public:
  using Error::Error;
};

/// A broken invariant inside hetero or a plugin: a bug, not a caller's mistake (thrown by
/// HETERO_INTERNAL_ASSERT, <hetero/internal_assert.hpp>); names the file, line and condition.
class HETERO_API InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace hetero
