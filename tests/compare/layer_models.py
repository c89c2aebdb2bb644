"""Small real models for the layer-trace tests (`inventory`, `compare` with speed, the gate), run
through tools/record_layers.py. LAYER_MODEL picks the model, LAYER_VARIANT what is changed:

- block: one pre-norm Transformer block (nn.MultiheadAttention, LayerNorm, an MLP with GELU);
- cnn: a small CNN with a custom operator registered here through torch.library
  (cudoctor_test::scale_shift, a CPU kernel written in Python) and a Python
  torch.autograd.Function (StraightThroughClamp), beside ordinary Conv2d / BatchNorm / pooling;
- variants of the cnn: "slow" (features.2 spins 20 ms before its ReLU: a layer made slower on
  purpose), "nan" (features.6 takes the square root of a negative number: NaN from there on),
  "error" (features.6 raises), "extra" (a layer "probe", an nn.Identity the others lack: the
  same values, one layer more).
"""
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

MODEL = os.environ.get("LAYER_MODEL", "cnn")
VARIANT = os.environ.get("LAYER_VARIANT", "")

# A custom operator, as a C++ extension's TORCH_LIBRARY would register one: namespace
# cudoctor_test, a kernel for the CPU dispatch key.
_lib = torch.library.Library("cudoctor_test", "DEF")
_lib.define("scale_shift(Tensor x, float scale, float shift) -> Tensor")
_lib.impl("scale_shift", lambda x, scale, shift: x * scale + shift, "CPU")


class StraightThroughClamp(torch.autograd.Function):
    """Clamps forward, passes the gradient through unchanged (a hand-written backward)."""

    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ScaleShift(nn.Module):
    def forward(self, x):
        return torch.ops.cudoctor_test.scale_shift(x, 0.5, 0.1)


class Clamp(nn.Module):
    def forward(self, x):
        return StraightThroughClamp.apply(x)


class SlowReLU(nn.Module):
    """A ReLU that first spins 20 ms on the clock: a kernel made slower on purpose (a spin, not a
    sleep, so the CPU and torch's worker threads stay as busy as in a real slow kernel)."""

    def forward(self, x):
        end = time.perf_counter() + 0.02
        while time.perf_counter() < end:
            pass
        return F.relu(x)


class RmsNorm(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        if VARIANT == "error":
            raise RuntimeError("this layer's kernel is not available")
        return x / torch.sqrt((x * x).mean(dim=1, keepdim=True) + self.eps)


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),                               # features.0
            nn.BatchNorm2d(8),                                           # features.1
            SlowReLU() if VARIANT == "slow" else nn.ReLU(),             # features.2
            ScaleShift(),                                                # features.3
            nn.MaxPool2d(2),                                             # features.4
            nn.Conv2d(8, 16, 3, padding=1),                              # features.5
            RmsNorm(eps=-1e3 if VARIANT == "nan" else 1e-5),             # features.6
            Clamp(),                                                     # features.7
            nn.AdaptiveAvgPool2d(1),                                     # features.8
        )
        self.head = nn.Linear(16, 10)
        if VARIANT == "extra":
            self.probe = nn.Identity()

    def forward(self, x):
        x = self.features(x)
        if VARIANT == "extra":
            x = self.probe(x)
        return self.head(torch.flatten(x, 1))


class Block(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


def build_model():
    torch.manual_seed(1234)  # the same weights in every variant
    return Block() if MODEL == "block" else SmallCnn()


def example_inputs():
    g = torch.Generator().manual_seed(7)
    if MODEL == "block":
        return (torch.randn(2, 12, 32, generator=g),)
    return (torch.randn(4, 3, 32, 32, generator=g),)
