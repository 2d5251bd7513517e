#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hetero's DLPack interop against PyTorch (torch.utils.dlpack) and NumPy (np.from_dlpack),
through ctypes and dlpack_bridge.cpp: hetero -> torch, hetero -> NumPy (values, strides and
byte offsets), torch -> hetero and NumPy -> hetero (values, and a write through hetero that
the producer sees: no copy). Usage: dlpack_roundtrip.py path/to/libdlpack_bridge.so"""
import ctypes
import os
import sys

import numpy as np
import torch
import torch.utils.dlpack

# The capsule protocol helpers of the user's example (examples/python_dlpack).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples", "python_dlpack"))
from hetero_dlpack import FromHetero, capsule, consumed  # noqa: E402

lib = ctypes.CDLL(sys.argv[1])
lib.bridge_export_arange.restype = ctypes.c_void_p
lib.bridge_export_arange.argtypes = [ctypes.c_int64]
lib.bridge_export_strided.restype = ctypes.c_void_p
lib.bridge_export_strided.argtypes = [ctypes.c_int64]
lib.bridge_import_sum.restype = ctypes.c_double
lib.bridge_import_sum.argtypes = [ctypes.c_void_p]
lib.bridge_import_fill.restype = ctypes.c_int64
lib.bridge_import_fill.argtypes = [ctypes.c_void_p, ctypes.c_double]

failures = 0


def check(what, ok):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    failures += 0 if ok else 1


want = [1.5 * i for i in range(7)]
t = torch.utils.dlpack.from_dlpack(capsule(lib.bridge_export_arange(7)))
check("hetero -> torch: values and dtype", t.tolist() == want and t.dtype == torch.float32)
a = np.from_dlpack(FromHetero(lib.bridge_export_arange(7)))
check("hetero -> numpy: values and dtype", a.tolist() == want and a.dtype == np.float32)
s = np.from_dlpack(FromHetero(lib.bridge_export_strided(5)))
check("hetero -> numpy: a strided view with a byte offset", s.tolist() == [6.0, 7.0, 8.0, 9.0])
st = torch.utils.dlpack.from_dlpack(capsule(lib.bridge_export_strided(5)))
check("hetero -> torch: a strided view with a byte offset", st.tolist() == [6.0, 7.0, 8.0, 9.0])

x = torch.arange(12, dtype=torch.float64).reshape(3, 4)[:, 1:3]
check("torch -> hetero: sum of a strided view",
      lib.bridge_import_sum(consumed(torch.utils.dlpack.to_dlpack(x))) == float(x.sum()))
y = torch.zeros(5, dtype=torch.int32)
n = lib.bridge_import_fill(consumed(torch.utils.dlpack.to_dlpack(y)), 7.0)
check("torch -> hetero: a write through hetero reaches torch's memory", n == 5 and y.tolist() == [7] * 5)
b = np.arange(6, dtype=np.float32).reshape(2, 3)
check("numpy -> hetero: sum", lib.bridge_import_sum(consumed(b.__dlpack__())) == 15.0)
c = np.zeros(4, dtype=np.int64)
lib.bridge_import_fill(consumed(c.__dlpack__()), -2.0)
check("numpy -> hetero: a write through hetero reaches numpy's memory", c.tolist() == [-2] * 4)
u = np.array([1, 200, 3], dtype=np.uint8)
check("numpy uint8 -> hetero", lib.bridge_import_sum(consumed(u.__dlpack__())) == 204.0)
sys.exit(1 if failures else 0)
