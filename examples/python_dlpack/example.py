#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hetero from Python through DLPack, without copies (issue #47 item 6): a PyTorch tensor
and a NumPy array go to hetero, hetero's results come back, and a write through hetero
reaches the producer's memory.

usage: example.py path/to/libhetero_python_example.so   (CTest example.python_dlpack)
"""
import ctypes
import sys

import numpy as np
import torch

from hetero_dlpack import from_hetero, to_hetero

lib = ctypes.CDLL(sys.argv[1])
lib.hetero_softmax_last_dim.restype = ctypes.c_void_p
lib.hetero_softmax_last_dim.argtypes = [ctypes.c_void_p]
lib.hetero_scale_in_place.restype = ctypes.c_int
lib.hetero_scale_in_place.argtypes = [ctypes.c_void_p, ctypes.c_double]
lib.hetero_last_error.restype = ctypes.c_char_p


def softmax(array):
    ptr = lib.hetero_softmax_last_dim(to_hetero(array))
    if not ptr:
        raise RuntimeError(lib.hetero_last_error().decode())
    return from_hetero(ptr)


x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
y = torch.from_dlpack(softmax(x))          # hetero computed it; torch owns the result
print("torch -> hetero softmax -> torch:", y)
assert torch.allclose(y, torch.softmax(x, -1)), "softmax differs from torch's"

a = np.arange(6, dtype=np.float64).reshape(2, 3)[:, 1:]   # a strided view
b = np.from_dlpack(softmax(a))
print("numpy (a strided view) -> hetero softmax -> numpy:", b)
assert np.allclose(b, np.exp(a) / np.exp(a).sum(-1, keepdims=True)), "softmax differs"

z = torch.ones(4, dtype=torch.float32)
assert lib.hetero_scale_in_place(to_hetero(z), 2.5) == 0
print("hetero wrote into torch's memory:", z)
assert z.tolist() == [2.5] * 4, "the write did not reach torch's tensor"

ints = np.array([1, 2, 3], dtype=np.int64)
try:
    softmax(ints)
    raise AssertionError("softmax of int64 was accepted")
except RuntimeError as e:  # hetero's typed error, as text
    print("hetero refused:", str(e).splitlines()[0])
print("ok")
