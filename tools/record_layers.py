#!/usr/bin/env python3
"""Record every module's output of a PyTorch model into a .safetensors or .npz file, so that
`cudoctor compare REF TEST` can align two runs layer by layer (eager vs torch.compile, CPU vs
GPU, float32 vs bfloat16, old vs new driver or toolkit).

Forward hooks on every module (named_modules) record what each returns — a tensor, or each tensor
of a tuple / list / dict (NAME.0, NAME.key) — in the order the modules finish (execution order).
A module that runs more than once gets NAME, NAME@1, NAME@2, …; the model's own output is named
"output".

As a library:
    from record_layers import record
    record(model, (tokens,), "ref.safetensors")

From the command line, with a Python file that defines build_model() and example_inputs():
    record_layers.py my_model.py ref.safetensors
    record_layers.py my_model.py test.safetensors --dtype bfloat16
    record_layers.py my_model.py test.npz --compile        # torch.compile (PyTorch 2)

safetensors keeps every dtype (bfloat16 and float8 included). NumPy has no bfloat16 or float8:
.npz widens them to float32 (exactly; `compare` then notes the dtype difference).
safetensors is written by hand (struct + json): the format is an 8-byte little-endian header
length, a JSON header, the raw bytes (python3-safetensors is not needed).
"""
import argparse
import importlib.util
import json
import struct
import sys

import torch

# torch dtype -> (safetensors name, a same-size integer dtype to take the raw bytes through numpy)
_DTYPES = {
    torch.float64: ("F64", torch.int64),
    torch.float32: ("F32", torch.int32),
    torch.float16: ("F16", torch.int16),
    torch.bfloat16: ("BF16", torch.int16),
    torch.int64: ("I64", torch.int64),
    torch.int32: ("I32", torch.int32),
    torch.int16: ("I16", torch.int16),
    torch.int8: ("I8", torch.int8),
    torch.uint8: ("U8", torch.uint8),
    torch.bool: ("BOOL", torch.uint8),
}
for _name, _st in (("float8_e4m3fn", "F8_E4M3"), ("float8_e5m2", "F8_E5M2")):
    if hasattr(torch, _name):
        _DTYPES[getattr(torch, _name)] = (_st, torch.uint8)


def tensor_bytes(t):
    """The tensor's bytes, row-major, little-endian (the machines this runs on)."""
    t = t.detach().to("cpu").contiguous()
    name, raw = _DTYPES[t.dtype]
    return name, t.view(raw).numpy().tobytes() if t.dim() > 0 else t.reshape(1).view(raw).numpy().tobytes()


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, torch.Tensor) in the order to keep. The header lists them in that
    order and the data follow in that order."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        st_dtype, data = tensor_bytes(t)
        header[name] = {"dtype": st_dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data start 8-byte aligned, as the reference writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def write_npz(path, tensors, compressed=False):
    import numpy as np

    arrays = {}
    for name, t in tensors:
        t = t.detach().to("cpu")
        if t.dtype not in (torch.float64, torch.float32, torch.float16, torch.int64, torch.int32, torch.int16, torch.int8,
                           torch.uint8, torch.bool):
            t = t.float()  # bfloat16 / float8: no NumPy type; float32 holds them exactly
        arrays[name] = t.contiguous().numpy()
    (np.savez_compressed if compressed else np.savez)(path, **arrays)


class Recorder:
    """Forward hooks on every module of `model`; `tensors` fills as the model runs."""

    def __init__(self, model):
        self.tensors = []
        self._seen = {}
        self._handles = []
        for name, module in model.named_modules():
            self._handles.append(module.register_forward_hook(self._hook(name or "output")))

    def _hook(self, name):
        def hook(module, inputs, output):
            calls = self._seen.get(name, 0)
            self._seen[name] = calls + 1
            self._add(name if calls == 0 else f"{name}@{calls}", output)
        return hook

    def _add(self, name, value):
        if isinstance(value, torch.Tensor):
            if value.dtype in _DTYPES:
                self.tensors.append((name, value.detach().to("cpu").clone()))
        elif isinstance(value, (tuple, list)):
            for i, v in enumerate(value):
                self._add(f"{name}.{i}", v)
        elif isinstance(value, dict):
            for k, v in value.items():
                self._add(f"{name}.{k}", v)

    def remove(self):
        for h in self._handles:
            h.remove()


def record(model, inputs, path, fmt=None, metadata=None):
    """Runs model(*inputs) under torch.no_grad() with hooks on every module and writes what each
    module returned to `path` (.safetensors, or .npz). Returns the list of (name, tensor)."""
    fmt = fmt or ("npz" if str(path).endswith(".npz") else "safetensors")
    rec = Recorder(model)
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        rec.remove()
    if fmt == "npz":
        write_npz(path, rec.tensors)
    else:
        write_safetensors(path, rec.tensors, metadata or {"producer": "cudoctor tools/record_layers.py", "torch": torch.__version__})
    return rec.tensors


def _load(path):
    spec = importlib.util.spec_from_file_location("user_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model_file", help="a Python file defining build_model() and example_inputs()")
    p.add_argument("out", help="output .safetensors or .npz")
    p.add_argument("--dtype", choices=["float32", "float64", "float16", "bfloat16"], help="cast the model and its floating inputs")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, …")
    p.add_argument("--compile", action="store_true", help="run torch.compile(model) (PyTorch 2)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    user = _load(args.model_file)
    model = user.build_model().eval().to(args.device)
    inputs = tuple(x.to(args.device) if isinstance(x, torch.Tensor) else x for x in user.example_inputs())
    if args.dtype:
        dtype = getattr(torch, args.dtype)
        model = model.to(dtype)
        inputs = tuple(x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs)
    rec = Recorder(model)  # before torch.compile, so Dynamo sees the hooks
    if args.compile:
        if not hasattr(torch, "compile"):
            rec.remove()
            sys.exit("record_layers: torch.compile needs PyTorch 2")
        model = torch.compile(model)
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        rec.remove()
    if args.out.endswith(".npz"):
        write_npz(args.out, rec.tensors)
    else:
        write_safetensors(args.out, rec.tensors, {"producer": "cudoctor tools/record_layers.py", "torch": torch.__version__})
    print(f"record_layers: {len(rec.tensors)} tensors -> {args.out}")


if __name__ == "__main__":
    main()
