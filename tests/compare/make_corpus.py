#!/usr/bin/env python3
"""Writes the fuzz corpus seeds of the safetensors, npy and npz readers (fuzz/corpus/<name>/):
small real files written by NumPy and by tools/record_layers.py (torch), and malformed ones cut
from them. Run once by hand; the seeds are committed. Usage: make_corpus.py REPO_ROOT"""
import io
import os
import struct
import sys
import zipfile

import numpy as np
import torch

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "tools"))
import record_layers  # noqa: E402


def put(kind, name, data):
    d = os.path.join(root, "fuzz", "corpus", kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(a, **kw):
    b = io.BytesIO()
    np.save(b, a, **kw)
    return b.getvalue()


# safetensors: real files, then each malformation the reader names.
torch.manual_seed(0)
real = [("embed", torch.randn(2, 3)), ("h.bf16", torch.randn(4).bfloat16()), ("ids", torch.arange(5)), ("mask", torch.tensor([True, False])),
        ("half", torch.randn(2, 2).half()), ("scalar", torch.tensor(1.5, dtype=torch.float64))]
tmp = os.path.join(root, "fuzz", "corpus", ".tmp.safetensors")
record_layers.write_safetensors(tmp, real, {"producer": "make_corpus"})
good = open(tmp, "rb").read()
os.remove(tmp)
put("safetensors", "torch_mixed.safetensors", good)
n = struct.unpack("<Q", good[:8])[0]
put("safetensors", "header_past_end.safetensors", struct.pack("<Q", len(good)) + good[8:])
put("safetensors", "huge_header_len.safetensors", struct.pack("<Q", 2**63) + good[8:])
put("safetensors", "truncated_data.safetensors", good[:-7])
put("safetensors", "short.safetensors", good[:5])


def st(header):
    h = header.encode()
    return struct.pack("<Q", len(h)) + h + b"\0" * 16


put("safetensors", "offsets_outside.safetensors", st('{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,4000]}}'))
put("safetensors", "shape_mismatch.safetensors", st('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}'))
put("safetensors", "huge_shape.safetensors", st('{"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}}'))
put("safetensors", "negative_dim.safetensors", st('{"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}'))
put("safetensors", "unknown_dtype.safetensors", st('{"a":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}}'))
put("safetensors", "not_json.safetensors", st('{"a":{"dtype":'))
put("safetensors", "nested.safetensors", st("[" * 500 + "]" * 500))

# npy: NumPy's own files (each dtype, scalar, empty, version 2.0, Fortran order, big-endian).
for name, a in (("f4_2x3", np.arange(6, dtype="<f4").reshape(2, 3)), ("f8", np.linspace(0, 1, 5)), ("f2", np.array([1, 65504, 6e-8, np.inf, np.nan], dtype="<f2")),
                ("i8", np.arange(-3, 3, dtype=np.int64)), ("u1", np.arange(4, dtype=np.uint8)), ("bool", np.array([True, False, True])),
                ("scalar", np.float32(2.5)), ("empty", np.zeros((0, 3), dtype="<f4")), ("i2", np.array([-1, 2], dtype="<i2")),
                ("fortran", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3))), ("big_endian", np.arange(3, dtype=">f4")),
                ("complex", np.array([1 + 2j])), ("structured", np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))):
    put("npy", name + ".npy", npy(a))
v2 = io.BytesIO()
np.lib.format.write_array(v2, np.arange(4, dtype="<u4"), version=(2, 0))
put("npy", "version2.npy", v2.getvalue())
good_npy = npy(np.arange(6, dtype="<f4").reshape(2, 3))
put("npy", "truncated_data.npy", good_npy[:-3])
put("npy", "left_over.npy", good_npy + b"\0\0\0\0")
put("npy", "header_past_end.npy", good_npy[:8] + struct.pack("<H", 60000) + good_npy[10:])
put("npy", "huge_shape.npy", good_npy.replace(b"(2, 3)", b"(9999999999999, 3999999999)")[:200])
put("npy", "bad_dict.npy", good_npy.replace(b"'shape'", b"'shap\"'"))

# npz: np.savez (stored) and np.savez_compressed (deflated), then broken archives.
arrays = {"conv.weight": np.arange(12, dtype="<f4").reshape(3, 4), "ids": np.arange(3), "flag": np.array([True])}
for name, fn in (("stored.npz", np.savez), ("deflated.npz", np.savez_compressed)):
    b = io.BytesIO()
    fn(b, **arrays)
    put("npz", name, b.getvalue())
stored = io.BytesIO()
np.savez(stored, **arrays)
stored = stored.getvalue()
put("npz", "truncated.npz", stored[: len(stored) // 2])
eocd = stored.rfind(b"PK\x05\x06")
put("npz", "cd_outside.npz", stored[: eocd + 16] + struct.pack("<I", 0x7FFFFFF0) + stored[eocd + 20:])
deflated = io.BytesIO()
np.savez_compressed(deflated, **arrays)
deflated = bytearray(deflated.getvalue())
cd = deflated.find(b"PK\x01\x02")
forged = bytearray(deflated)
forged[cd + 24: cd + 28] = struct.pack("<I", 0xFFFFFFF0)  # uncompressed size: ~4 GiB from a few bytes
put("npz", "forged_size.npz", bytes(forged))
corrupt = bytearray(deflated)
corrupt[100] ^= 0xFF  # inside the first member's deflate stream (past its 65-byte local header)
put("npz", "corrupt_deflate.npz", bytes(corrupt))
z = io.BytesIO()
with zipfile.ZipFile(z, "w") as zf:
    zf.writestr("readme.txt", "not an array")
    zf.writestr("x.npy", npy(np.arange(3, dtype="<i4")))
put("npz", "other_members.npz", z.getvalue())

# ZIP64 as NumPy writes it for arrays past 4 GiB: the limit lowered so a small archive carries the
# ZIP64 extra fields in the central directory (0xffffffff sizes and offsets) and the ZIP64 end
# records — the same bytes, small.
saved_limit = zipfile.ZIP64_LIMIT
zipfile.ZIP64_LIMIT = 64
try:
    z64 = io.BytesIO()
    np.savez(z64, **arrays)
    put("npz", "zip64.npz", z64.getvalue())
finally:
    zipfile.ZIP64_LIMIT = saved_limit
