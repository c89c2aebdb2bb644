"""A small Transformer-like model (embedding, 4 pre-norm blocks of self-attention and an MLP, a
final norm and a head) for the `compare` tests: float32 against bfloat16 shows where bf16 error
accumulates; the "tanh" variant changes one layer's computation (block 2's GELU uses the tanh
approximation, as some compiled backends do) and must be found as the first failure."""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

VARIANT = os.environ.get("TINY_TRANSFORMER_VARIANT", "")


class Gelu(nn.Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.out = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = (m(x).view(b, t, h, d // h).transpose(1, 2) for m in (self.q, self.k, self.v))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h), dim=-1)
        return self.out((att @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads, approximate="none"):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), Gelu(approximate), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    def __init__(self, vocab=96, d=64, heads=4, layers=4, changed_block=None):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads, "tanh" if i == changed_block else "none") for i in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def build_model():
    torch.manual_seed(1234)  # the same weights in every variant
    return TinyTransformer(changed_block=2 if VARIANT == "tanh" else None)


def example_inputs():
    g = torch.Generator().manual_seed(99)
    return (torch.randint(0, 96, (2, 24), generator=g),)
