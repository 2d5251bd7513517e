#!/usr/bin/python3
"""An independent safetensors reader and writer (json, struct and NumPy only) for the
interoperability test of hetero::save / hetero::load_file.

  safetensors_interop.py read FILE    checks FILE holds exactly the reference tensors
  safetensors_interop.py write FILE   writes the reference tensors to FILE

The reference tensors (names, dtypes, shapes, values) are defined here and, identically,
in test_safetensors_interop.cpp. Exit status 0 on success, 1 with a message otherwise.
"""
import json
import struct
import sys

import numpy as np


def reference():
    """name -> (safetensors dtype code, numpy array of the stored values)."""
    f32 = np.arange(6, dtype=np.float32).reshape(2, 3) * np.float32(0.5) - np.float32(1.25)
    f64 = np.arange(4, dtype=np.float64) / 3.0
    i64 = np.arange(3, dtype=np.int64) * 1000000007 - 5
    i32 = -np.arange(4, dtype=np.int32).reshape(2, 2) * 7
    b = (np.arange(5) % 2 == 0)
    f16 = np.array([1.5, -2.25, 65504.0, 2.0 ** -24], dtype=np.float16)
    bf16 = np.array([1.0, -3.5, 256.0], dtype=np.float32)  # exact in bfloat16
    return {
        "layer.weight": ("F32", f32),
        "f64": ("F64", f64),
        "i64": ("I64", i64),
        "i32": ("I32", i32),
        "mask": ("BOOL", b),
        "half": ("F16", f16),
        "bhalf": ("BF16", bf16),
        "pixels": ("U8", np.array([0, 128, 255], dtype=np.uint8)),
        "quantised": ("I8", np.array([[-128, 0], [1, 127]], dtype=np.int8)),
        "scalar": ("F32", np.array(42.0, dtype=np.float32)),
        "empty": ("F32", np.zeros((0, 3), dtype=np.float32)),
    }


NUMPY = {"F32": "<f4", "F64": "<f8", "I64": "<i8", "I32": "<i4", "BOOL": "|b1", "F16": "<f2",
         "U8": "|u1", "I8": "|i1"}


def to_bytes(code, array):
    if code == "BF16":  # the upper 16 bits of float32 (values chosen exact)
        return (array.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
    return np.ascontiguousarray(array.astype(NUMPY[code])).tobytes()


def from_bytes(code, data, shape):
    if code == "BF16":
        return (np.frombuffer(data, dtype="<u2").astype("<u4") << 16).view("<f4").reshape(shape)
    return np.frombuffer(data, dtype=NUMPY[code]).reshape(shape)


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    header.pop("__metadata__", None)
    ref = reference()
    if set(header) != set(ref):
        return f"names differ: file {sorted(header)}, expected {sorted(ref)}"
    for name, (code, expected) in ref.items():
        entry = header[name]
        if entry["dtype"] != code:
            return f"{name}: dtype {entry['dtype']}, expected {code}"
        if tuple(entry["shape"]) != expected.shape:
            return f"{name}: shape {entry['shape']}, expected {list(expected.shape)}"
        begin, end = entry["data_offsets"]
        got = from_bytes(code, data[begin:end], expected.shape)
        if not np.array_equal(got, expected.astype(got.dtype)):
            return f"{name}: values {got.ravel().tolist()}, expected {expected.ravel().tolist()}"
    return None


def write(path):
    header, chunks, offset = {"__metadata__": {"writer": "numpy"}}, [], 0
    for name, (code, array) in reference().items():
        raw = to_bytes(code, array)
        header[name] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("read", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "write":
        write(sys.argv[2])
        return 0
    error = read(sys.argv[2])
    if error:
        print(f"safetensors_interop.py: {sys.argv[2]}: {error}", file=sys.stderr)
        return 1
    print(f"safetensors_interop.py: {sys.argv[2]}: all tensors match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
