#!/usr/bin/python3
"""Writes the hand-made malformed safetensors files of malformed/ and their manifest
malformed/EXPECTED ("file<TAB>text the FormatError message must contain").
Run from this directory when adding a kind; the files are committed.
test_safetensors_corpus.cpp replays every file, and the libFuzzer target
(tests/fuzz/fuzz_safetensors.cpp) uses them as seeds."""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "malformed")


def with_header(header_bytes, data=b"", length=None):
    n = len(header_bytes) if length is None else length
    return struct.pack("<Q", n) + header_bytes + data


def js(obj, data=b""):
    return with_header(json.dumps(obj).encode(), data)


def t(dtype="F32", shape=(1,), offsets=(0, 4)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


CASES = [
    ("empty_file", b"", "too short"),
    ("seven_bytes", b"\x01\x00\x00\x00\x00\x00\x00", "too short"),
    ("header_length_over_limit", struct.pack("<Q", 2**62) + b"{}", "exceeds the limit"),
    ("header_length_past_eof", with_header(b"{}", length=64), "runs past the end"),
    ("header_length_zero", with_header(b"", length=0), "does not start with '{'"),
    ("header_is_array", with_header(b"[]"), "does not start with '{'"),
    ("header_unterminated_json", with_header(b"{\"a\": "), "not valid JSON"),
    ("header_trailing_garbage", with_header(b"{} x"), "not valid JSON"),
    ("header_invalid_utf8", with_header(b"{\"\xff\": 1}"), "not valid UTF-8"),
    ("header_overlong_utf8", with_header(b"{\"\xc0\xaf\": 1}"), "not valid UTF-8"),
    ("header_utf8_surrogate", with_header(b"{\"\xed\xa0\x80\": 1}"), "not valid UTF-8"),
    ("header_truncated_utf8", with_header(b"{\"\xe2\x82"), "not valid UTF-8"),
    ("entry_not_object", js({"a": 5}), "entry is not a JSON object"),
    ("missing_dtype", js({"a": {"shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4), "missing field \"dtype\""),
    ("missing_shape", js({"a": {"dtype": "F32", "data_offsets": [0, 4]}}, b"\0" * 4), "missing field \"shape\""),
    ("missing_offsets", js({"a": {"dtype": "F32", "shape": [1]}}, b"\0" * 4), "missing field \"data_offsets\""),
    ("unexpected_field", js({"a": dict(t(), extra=1)}, b"\0" * 4), "unexpected field \"extra\""),
    ("unknown_dtype", js({"a": t("F33")}, b"\0" * 4), "unknown dtype"),
    ("unsupported_dtype_u16", js({"a": t("U16", (2,))}, b"\0" * 4), "not supported"),
    ("dtype_not_string", js({"a": t(32)}, b"\0" * 4), "\"dtype\" is not a string"),
    ("shape_not_array", js({"a": dict(t(), shape=4)}, b"\0" * 4), "\"shape\" is not an array"),
    ("shape_negative", js({"a": t(shape=(-1,))}, b"\0" * 4), "non-negative integers"),
    ("shape_fractional", js({"a": t(shape=(2.5,))}, b"\0" * 4), "non-negative integers"),
    ("shape_nine_dims", js({"a": t(shape=(1,) * 9)}, b"\0" * 4), "at most 8"),
    ("shape_bytes_overflow", js({"a": t(shape=(2**32, 2**32, 2**32))}, b"\0" * 4), "overflows"),
    ("shape_huge_small_range", js({"a": t(shape=(10**18,))}, b"\0" * 4), "need"),
    ("offsets_one_value", js({"a": t(offsets=(0,))}, b"\0" * 4), "two offsets"),
    ("offsets_negative", js({"a": t(offsets=(-4, 0))}, b"\0" * 4), "non-negative integers"),
    ("offsets_reversed", js({"a": t(offsets=(4, 0))}, b"\0" * 4), "end before"),
    ("bytes_mismatch", js({"a": t(shape=(2,), offsets=(0, 4))}, b"\0" * 4), "need 8 bytes"),
    ("offsets_overlap", js({"a": t(offsets=(0, 4)), "b": t(offsets=(2, 6))}, b"\0" * 8), "overlap"),
    ("offsets_gap", js({"a": t(offsets=(0, 4)), "b": t(offsets=(8, 12))}, b"\0" * 12), "gap of 4 bytes"),
    ("first_not_at_zero", js({"a": t(offsets=(4, 8))}, b"\0" * 8), "gap of 4 bytes"),
    ("data_truncated", js({"a": t(shape=(4,), offsets=(0, 16))}, b"\0" * 10), "truncated?"),
    ("trailing_data", js({"a": t()}, b"\0" * 12), "not described by the header"),
    ("duplicate_name", with_header(b'{"a": ' + json.dumps(t()).encode() + b', "a": ' +
                                   json.dumps(t()).encode() + b'}', b"\0" * 4), "appears twice"),
    ("metadata_not_object", js({"__metadata__": [1]}), "\"__metadata__\" is not a JSON object"),
    ("metadata_value_not_string", js({"__metadata__": {"k": 1}}), "is not a string"),
    ("deep_nesting", with_header(b'{"__metadata__": ' + b"[" * 5000 + b"]" * 5000 + b"}"), "nests deeper"),
    ("empty_name", js({"": t()}, b"\0" * 4), "empty name"),
    ("header_is_string_value", with_header(b'{"a": "x"}'), "entry is not a JSON object"),
    ("duplicate_field", with_header(b'{"a": {"dtype": "F32", "dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}',
                                    b"\0" * 4), "field \"dtype\" appears twice"),
    ("nul_padding", with_header(json.dumps({"a": t()}).encode() + b"\0" * 6, b"\0" * 4), "NUL byte"),
    ("bool_byte_not_0_or_1", js({"a": t("BOOL", (4,))}, b"\0\1\2\0"), "BOOL element 2 is byte 2"),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    lines = []
    for i, (name, blob, expected) in enumerate(CASES):
        fname = f"{i:02d}_{name}.safetensors"
        with open(os.path.join(OUT, fname), "wb") as f:
            f.write(blob)
        lines.append(f"{fname}\t{expected}")
    with open(os.path.join(OUT, "EXPECTED"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(CASES)} malformed files in {OUT}")


if __name__ == "__main__":
    main()
