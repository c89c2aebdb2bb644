#!/usr/bin/env python3
"""What people run today to align two backends: the metrics of `cudoctor compare` computed with
NumPy, tensor by tensor, in float64 (max |a-b| and where, ||a-b||/||b||, max |a-b|/|b|, mean
|a-b|, NaN/Inf counts, elements beyond atol + rtol*|b|). Reads two .safetensors files (F32, F64,
F16 tensors, memory-mapped) or two folders of .npy (memory-mapped).

  compare_numpy_metrics.py REF TEST                  # time it (files or folders)
  compare_numpy_metrics.py --make DIR MB             # write DIR/ref.safetensors, DIR/test.safetensors
  compare_numpy_metrics.py --make-npy DIR MB         # write REF_DIR=DIR/ref, TEST_DIR=DIR/test (.npy)
"""
import json
import mmap
import os
import struct
import sys

import numpy as np

N = 16 * 1024 * 1024  # 64 MB of float32 per tensor
ST_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}


def pairs_of(mb):
    rng = np.random.default_rng(1)
    for i in range(max(1, mb // 64)):
        ref = rng.standard_normal(N, dtype=np.float32).reshape(1024, -1)
        test = ref * (1 + np.float32(1e-6) * rng.standard_normal(ref.shape, dtype=np.float32))
        yield f"layer{i:03d}", test.astype(np.float32), ref


def make_npy(folder, mb):
    for side in ("ref", "test"):
        os.makedirs(os.path.join(folder, side), exist_ok=True)
    count = 0
    for name, test, ref in pairs_of(mb):
        np.save(os.path.join(folder, "ref", name + ".npy"), ref)
        np.save(os.path.join(folder, "test", name + ".npy"), test)
        count += 1
    print(f"{count} tensors of 64 MB per side in {folder}")


def make(folder, mb):
    """Two safetensors files, written tensor by tensor (never both files in memory)."""
    os.makedirs(folder, exist_ok=True)
    count = max(1, mb // 64)
    header = {f"layer{i:03d}": {"dtype": "F32", "shape": [1024, N // 1024], "data_offsets": [i * N * 4, (i + 1) * N * 4]}
              for i in range(count)}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    files = {side: open(os.path.join(folder, side + ".safetensors"), "wb") for side in ("ref", "test")}
    for f in files.values():
        f.write(struct.pack("<Q", len(text)) + text)
    for _, test, ref in pairs_of(mb):
        files["ref"].write(ref.tobytes())
        files["test"].write(test.tobytes())
    for f in files.values():
        f.close()
    print(f"{count} tensors of 64 MB per side in {folder}/ref.safetensors, test.safetensors")


def tensors(path):
    """name -> array (memory-mapped) of a .safetensors file or a folder of .npy."""
    if os.path.isdir(path):
        return {n[:-4]: np.load(os.path.join(path, n), mmap_mode="r") for n in sorted(os.listdir(path)) if n.endswith(".npy")}
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        out[name] = np.frombuffer(data, dtype=ST_DTYPES[t["dtype"]], count=(end - begin) // np.dtype(ST_DTYPES[t["dtype"]]).itemsize,
                                  offset=8 + length + begin).reshape(t["shape"])
    return out


def metrics(test, ref, rtol=1.3e-6, atol=1e-5):
    a = test.astype(np.float64)
    b = ref.astype(np.float64)
    finite = np.isfinite(a) & np.isfinite(b)
    d = np.where(finite, a - b, 0.0)
    ad = np.abs(d)
    absb = np.abs(b)
    worst = np.unravel_index(np.argmax(ad), ad.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(finite & (b != 0), ad / absb, 0.0)
    ok = np.where(finite, ad <= atol + rtol * absb, a == b)
    return {
        "max_abs": float(ad.max()), "worst": worst, "rel": float(np.linalg.norm(d) / np.linalg.norm(np.where(finite, b, 0.0))),
        "max_rel": float(r.max()), "mean_abs": float(ad[finite].mean()), "mismatched": int((~ok).sum()),
        "nan": (int(np.isnan(a).sum()), int(np.isnan(b).sum())), "inf": (int(np.isinf(a).sum()), int(np.isinf(b).sum())),
    }


def main():
    if sys.argv[1] == "--make":
        return make(sys.argv[2], int(sys.argv[3]))
    if sys.argv[1] == "--make-npy":
        return make_npy(sys.argv[2], int(sys.argv[3]))
    ref, test = tensors(sys.argv[1]), tensors(sys.argv[2])
    failed = 0
    for name in ref:
        if name not in test:
            continue
        m = metrics(test[name], ref[name])
        failed += m["mismatched"] > 0 or m["rel"] > 1.3e-6
    print(f"{failed} failing")


if __name__ == "__main__":
    main()
