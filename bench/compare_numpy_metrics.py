#!/usr/bin/env python3
"""What people run today to align two backends: the metrics of `cudoctor compare` computed with
NumPy, tensor by tensor, in float64 (max |a-b| and where, ||a-b||/||b||, max |a-b|/|b|, mean
|a-b|, NaN/Inf counts, elements beyond atol + rtol*|b|). Reads two folders of .npy (memory-mapped).

  compare_numpy_metrics.py REF_DIR TEST_DIR          # time it
  compare_numpy_metrics.py --make DIR MB             # write REF_DIR=DIR/ref, TEST_DIR=DIR/test
"""
import os
import sys

import numpy as np


def make(folder, mb):
    rng = np.random.default_rng(1)
    n = 16 * 1024 * 1024  # 64 MB of float32 per tensor
    count = max(1, mb // 64)
    for side in ("ref", "test"):
        os.makedirs(os.path.join(folder, side), exist_ok=True)
    for i in range(count):
        ref = rng.standard_normal(n, dtype=np.float32).reshape(1024, -1)
        test = ref * (1 + np.float32(1e-6) * rng.standard_normal(ref.shape, dtype=np.float32))
        np.save(os.path.join(folder, "ref", f"layer{i:03d}.npy"), ref)
        np.save(os.path.join(folder, "test", f"layer{i:03d}.npy"), test.astype(np.float32))
    print(f"{count} tensors of 64 MB per side in {folder}")


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
    ref_dir, test_dir = sys.argv[1], sys.argv[2]
    failed = 0
    for name in sorted(os.listdir(ref_dir)):
        if not name.endswith(".npy"):
            continue
        m = metrics(np.load(os.path.join(test_dir, name), mmap_mode="r"), np.load(os.path.join(ref_dir, name), mmap_mode="r"))
        failed += m["mismatched"] > 0 or m["rel"] > 1.3e-6
    print(f"{failed} failing")


if __name__ == "__main__":
    main()
