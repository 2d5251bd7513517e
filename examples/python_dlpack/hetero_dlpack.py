# SPDX-License-Identifier: Apache-2.0
"""The DLPack capsule protocol with ctypes, for a C library over hetero's DLPack interop
(hetero_ops.cpp): what a Python binding would otherwise do for you.

to_hetero(array)  -> the DLManagedTensor pointer of a PyTorch tensor's or NumPy array's
                     capsule, marked used (hetero takes ownership; the memory is shared)
from_hetero(ptr)  -> an object PyTorch's and NumPy's from_dlpack accept, for a pointer
                     hetero returned (they take ownership; no copy)
"""
import ctypes

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule(ptr):
    """A "dltensor" capsule around a DLManagedTensor pointer (torch.utils.dlpack.from_dlpack)."""
    return _api.PyCapsule_New(ptr, b"dltensor", None)


class FromHetero:
    """A DLPack producer for np.from_dlpack and torch.from_dlpack (cpu memory)."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __dlpack__(self, stream=None):
        return capsule(self.ptr)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0


def from_hetero(ptr):
    return FromHetero(ptr)


def consumed(cap):
    """The DLManagedTensor of a producer's capsule, renamed "used_dltensor" as the protocol
    asks of a consumer: its deleter is now the consumer's (hetero's) to call."""
    ptr = _api.PyCapsule_GetPointer(cap, b"dltensor")
    _api.PyCapsule_SetName(cap, b"used_dltensor")
    return ptr


def to_hetero(array):
    return consumed(array.__dlpack__())
