#!/usr/bin/env python3
"""Test data for `cudoctor compare`, written at build time into OUTDIR:

- dtypes_{ref,test}.safetensors: one REF/TEST pair of tensors per dtype (F64 F32 F16 BF16, I8..U64,
  BOOL), special values (NaN, ±Inf), every F16 and every BF16 bit pattern against its float32
  value, 64-bit integers past 2^53 that differ by one, and a large tensor (the threaded path);
- the same (without BF16, which NumPy lacks, and without the large one) as np.savez, as
  np.savez_compressed, and as folders of .npy files;
- expected.json: the metrics of every pair computed independently by NumPy in float64, with the
  default tolerances read from torch.testing itself (torch.testing._comparison._DTYPE_PRECISIONS);
- tt_{ref,bf16,tanh}.safetensors and tt_{ref,bf16}.npz: tools/record_layers.py on a small
  Transformer-like model in float32, in bfloat16, and with one layer's computation changed.
"""
import json
import os
import subprocess
import sys

import numpy as np

OUT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import torch  # noqa: E402
from torch.testing._comparison import _DTYPE_PRECISIONS  # noqa: E402

import record_layers  # noqa: E402

os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(20240601)

FLOAT = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def tolerance(test_dtype, ref_dtype):
    """(rtol, atol, rel, exact): torch's table; the layer line = rtol, but 1e-3 for bf16 work."""
    def one(d):
        if d in FLOAT:
            rtol, atol = _DTYPE_PRECISIONS[FLOAT[d]]
            return rtol, atol, (1e-3 if d == "BF16" else rtol), False
        return 0.0, 0.0, 0.0, True
    a, b = one(test_dtype), one(ref_dtype)
    rtol = max(a[0], b[0])
    rel = max(a[2], b[2]) if test_dtype == ref_dtype else rtol  # across precisions: the coarser rtol
    return rtol, max(a[1], b[1]), rel, a[3] and b[3]


def metrics(test, ref, test_dtype, ref_dtype, test_raw=None, ref_raw=None):
    """NumPy's float64 answer for every number `compare` reports."""
    rtol, atol, rel_limit, exact = tolerance(test_dtype, ref_dtype)
    with np.errstate(invalid="ignore"):  # NaN payloads of float16 warn when widened
        a = test.astype(np.float64).ravel()
        b = ref.astype(np.float64).ravel()
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.where(finite, a - b, 0.0)
    ad = np.abs(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(finite & (b != 0), ad / np.abs(b), 0.0)
    ok = np.where(finite, ad <= atol + rtol * np.abs(b), a == b)
    if test_raw is not None:  # 64-bit integers: equality on the integers, not on doubles
        ok = test_raw.ravel() == ref_raw.ravel()
    ref_norm = np.sqrt(np.sum(np.where(finite, b, 0.0) ** 2))
    diff_norm = np.sqrt(np.sum(d ** 2))
    rel = diff_norm / ref_norm if ref_norm > 0 else (float("inf") if diff_norm > 0 else 0.0)
    worst = int(np.argmax(ad)) if a.size else 0
    worst_rel = int(np.argmax(r)) if a.size else 0
    nan_t, nan_r = int(np.isnan(a).sum()), int(np.isnan(b).sum())
    mismatched = int((~ok).sum())
    status = "PASS"
    if nan_t or nan_r or mismatched or (not exact and not rel <= rel_limit):
        status = "FAIL"
    return {
        "numel": int(a.size),
        "max_abs": float(ad.max()) if a.size else 0.0,
        "rel": rel,
        "max_rel": float(r.max()) if a.size else 0.0,
        "mean_abs": float(ad[finite].mean()) if finite.any() else 0.0,
        "worst_index": [int(i) for i in np.unravel_index(worst, ref.shape)] if a.size else [0] * ref.ndim,
        "worst_test": float(a[worst]) if a.size else 0.0,
        "worst_ref": float(b[worst]) if a.size else 0.0,
        "worst_rel_index": [int(i) for i in np.unravel_index(worst_rel, ref.shape)] if a.size else [0] * ref.ndim,
        "mismatched": mismatched,
        "nan_test": nan_t, "nan_ref": nan_r,
        "inf_test": int(np.isinf(a).sum()), "inf_ref": int(np.isinf(b).sum()),
        "status": status,
        "tolerance": {"rtol": rtol, "atol": atol, "rel": rel_limit},
    }


pairs = []  # (name, test torch.Tensor, ref torch.Tensor, in_numpy_formats)


def add(name, test, ref, numpy_formats=True):
    pairs.append((name, test, ref, numpy_formats))


def perturbed(ref, rel, n_big, big):
    """ref with a small relative error everywhere and a few large ones, rounded to ref's dtype."""
    x = ref.double()
    noise = torch.from_numpy(rng.normal(0, rel, size=tuple(ref.shape)))
    y = x * (1 + noise)
    flat = y.view(-1)
    idx = torch.from_numpy(rng.choice(flat.numel(), size=n_big, replace=False))
    flat[idx] += big
    return y.to(ref.dtype)


# Floating types: errors a little under and over each dtype's tolerance.
base = torch.from_numpy(rng.normal(0, 1, size=(6, 7, 5)))
add("f64", perturbed(base, 2e-8, 2, 1e-6), base.clone())
add("f32", perturbed(base.float(), 3e-7, 3, 1e-4), base.float())
add("f16", perturbed(base.half(), 2e-4, 1, 1e-2), base.half())
add("bf16", perturbed(base.bfloat16(), 1e-3, 2, 5e-2), base.bfloat16(), numpy_formats=False)
add("f32_close", perturbed(base.float(), 1e-7, 0, 0), base.float())  # passes
add("f16_vs_f32", base.half(), base.float())  # a dtype difference: compared at F16's tolerance
add("scalar", torch.tensor(3.5, dtype=torch.float32), torch.tensor(3.25, dtype=torch.float32))
add("empty", torch.zeros((0, 4)), torch.zeros((0, 4)))

# Special values: NaN never passes; the same infinity matches, another value does not.
special_ref = torch.tensor([1.0, float("inf"), float("-inf"), float("nan"), 0.0, 2.0, float("inf"), 5.0, 0.0, -0.0])
special_test = torch.tensor([1.0, float("inf"), float("inf"), float("nan"), 0.0, float("nan"), 3.0, 5.5, 1e-6, 0.0])
add("f32_special", special_test, special_ref)
inf_ref = torch.tensor([1.0, float("inf"), -2.0, float("-inf")])
add("f32_same_inf", inf_ref.clone(), inf_ref)  # passes

# Every F16 and every BF16 bit pattern against its float32 value (NumPy's and torch's widening).
patterns = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
f16_all = patterns.view(torch.float16)
add("f16_all", f16_all, torch.from_numpy(f16_all.numpy().astype(np.float32)))
bf16_all = patterns.view(torch.bfloat16)
add("bf16_all", bf16_all, bf16_all.float(), numpy_formats=False)

# Integers and bool: exact.
for name, dt, lo, hi in (("i8", torch.int8, -128, 128), ("i16", torch.int16, -30000, 30000), ("i32", torch.int32, -2**31, 2**31 - 1),
                         ("i64", torch.int64, -2**40, 2**40), ("u8", torch.uint8, 0, 256)):
    ref = torch.from_numpy(rng.integers(lo, hi, size=(4, 9))).to(dt)
    test = ref.clone()
    test.view(-1)[[3, 17]] = ref.view(-1)[[3, 17]] ^ 1
    add(name, test, ref)
    add(name + "_same", ref.clone(), ref)
big = torch.tensor([2**62, 2**62 + 2, -(2**61), 7], dtype=torch.int64)
big_test = big.clone()
big_test[0] += 1  # 2^62 + 1: the same double as 2^62
add("i64_big", big_test, big)
bool_ref = torch.from_numpy(rng.integers(0, 2, size=(3, 11)).astype(bool))
bool_test = bool_ref.clone()
bool_test[1, 4] = ~bool_test[1, 4]
add("bool", bool_test, bool_ref)
add("bool_same", bool_ref.clone(), bool_ref)

# Shapes that differ (same element count: values still compared; other count: not).
add("shape_transposed", base.float().reshape(35, 6), base.float().reshape(6, 35))
add("shape_count", torch.zeros(5), torch.zeros(6))

# Large: the threaded path (more than 4 chunks of 64 Ki elements).
large_ref = torch.from_numpy(rng.normal(0, 1, size=(3, 1000, 1001)).astype(np.float32))
add("f32_large", perturbed(large_ref, 1e-6, 5, 1e-3), large_ref, numpy_formats=False)

expected = {}
for name, test, ref, _ in pairs:
    tn, rn = record_layers.tensor_bytes(test)[0], record_layers.tensor_bytes(ref)[0]
    if test.numel() != ref.numel():
        expected[name] = {"status": "FAIL", "compared": False}
        continue
    t = test.float().numpy() if test.dtype == torch.bfloat16 else test.numpy()
    r = ref.float().numpy() if ref.dtype == torch.bfloat16 else ref.numpy()
    raw = (test.numpy(), ref.numpy()) if test.dtype == ref.dtype == torch.int64 else (None, None)
    m = metrics(t, r.reshape(ref.shape) if r.ndim else r, tn, rn, *raw)
    if list(test.shape) != list(ref.shape):
        m["status"] = "FAIL"
    m["test_dtype"], m["ref_dtype"] = tn, rn
    expected[name] = m

record_layers.write_safetensors(os.path.join(OUT, "dtypes_test.safetensors"), [(n, t) for n, t, _, _ in pairs])
record_layers.write_safetensors(os.path.join(OUT, "dtypes_ref.safetensors"), [(n, r) for n, _, r, _ in pairs])
np_pairs = [(n, t, r) for n, t, r, np_ok in pairs if np_ok]
for side, pick in (("test", 1), ("ref", 2)):
    arrays = {p[0]: p[pick].numpy() for p in np_pairs}
    np.savez(os.path.join(OUT, f"dtypes_{side}.npz"), **arrays)
    np.savez_compressed(os.path.join(OUT, f"dtypes_{side}_compressed.npz"), **arrays)
    folder = os.path.join(OUT, f"dtypes_{side}_npy")
    os.makedirs(folder, exist_ok=True)
    for name, a in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), a)
with open(os.path.join(OUT, "expected.json"), "w") as f:
    json.dump({"tensors": expected, "order": [p[0] for p in pairs], "numpy_names": [p[0] for p in np_pairs]}, f, indent=1)

# The model, recorded by the shipped tool, as a user would run it.
model = os.path.join(HERE, "tiny_transformer.py")
tool = os.path.join(ROOT, "tools", "record_layers.py")
runs = [("tt_ref.safetensors", [], ""), ("tt_bf16.safetensors", ["--dtype", "bfloat16"], ""), ("tt_tanh.safetensors", [], "tanh"),
        ("tt_ref.npz", [], ""), ("tt_bf16.npz", ["--dtype", "bfloat16"], "")]
for out, extra, variant in runs:
    env = dict(os.environ, TINY_TRANSFORMER_VARIANT=variant)
    subprocess.run([sys.executable, tool, model, os.path.join(OUT, out)] + extra, check=True, env=env, stdout=subprocess.DEVNULL)
