#!/usr/bin/env python3
"""Layer traces for `cudoctor inventory` and `compare`'s speed columns, written at build time into
OUTDIR by tools/record_layers.py (run as a user runs it) on the models of layer_models.py:

- cnn_ref.safetensors, cnn_ref.npz (+ .layers.json): the small CNN with a custom operator and an
  autograd.Function, timed (median of 10 calls after 3 warm-up, monotonic clock);
- cnn_slow.safetensors: features.2 made 20 ms slower on purpose;
- cnn_extra.safetensors: one layer ("probe") the reference lacks;
- block_ref.safetensors, block_bf16.safetensors: a Transformer block in float32 and bfloat16.
The gate's failures (NaN, an exception) are run by the tests themselves.
"""
import os
import subprocess
import sys

OUT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "record_layers.py")
MODELS = os.path.join(HERE, "layer_models.py")

os.makedirs(OUT, exist_ok=True)
runs = [
    ("cnn_ref.safetensors", "cnn", "", []),
    ("cnn_ref.npz", "cnn", "", []),
    ("cnn_slow.safetensors", "cnn", "slow", []),
    ("cnn_extra.safetensors", "cnn", "extra", []),
    ("block_ref.safetensors", "block", "", []),
    ("block_bf16.safetensors", "block", "", ["--dtype", "bfloat16"]),
]
for out, model, variant, extra in runs:
    env = dict(os.environ, LAYER_MODEL=model, LAYER_VARIANT=variant)
    subprocess.run([sys.executable, TOOL, MODELS, os.path.join(OUT, out)] + extra, check=True, env=env, stdout=subprocess.DEVNULL)
with open(os.path.join(OUT, "done"), "w") as f:
    f.write("\n".join(r[0] for r in runs) + "\n")
