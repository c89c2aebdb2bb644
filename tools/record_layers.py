#!/usr/bin/env python3
"""Record every module's output of a PyTorch model into a .safetensors or .npz file, so that
`cudoctor compare REF TEST` can align two runs layer by layer (eager vs torch.compile, CPU vs
GPU, float32 vs bfloat16, old vs new driver or toolkit).

Forward hooks on every module (named_modules) record what each returns — a tensor, or each tensor
of a tuple / list / dict (NAME.0, NAME.key) — in the order the modules finish (execution order).
A module that runs more than once gets NAME, NAME@1, NAME@2, …; the model's own output is named
"output".

Beside the outputs, each module call's layer trace (`cudoctor inventory` and `compare` read it):
its type; the devices it touched; the operators it dispatched itself (not its children's), seen
by a TorchDispatchMode below autograd — ATen ("aten::addmm"), prim, and custom operators of any
other namespace (torch.library, TORCH_LIBRARY extensions), with the devices of their tensors —
and the Python autograd.Function subclasses it applied; and its time per call (inclusive of its
children): the median of --repeat forward passes after --warmup ones, CUDA events on a GPU, a
monotonic clock (time.perf_counter_ns) on the CPU. Composite operators appear as what they
decompose into (F.linear as aten::t + aten::addmm): the kernels a backend must provide.

The first forward pass is the gate: an exception, a NaN or an Inf in any module's output exits 1
naming the first layer (in the order the modules finished) — before any comparison is worth
reading. With --gate-only nothing is written; otherwise the dump is still written for inspection.

The trace is JSON, stored in the safetensors header's __metadata__ under "cudoctor.layers" (one
file: the trace cannot be separated from the tensors it describes, and readers that ignore
metadata read the dump as before); an .npz has no place for it, so it goes to OUT.layers.json.

As a library:
    from record_layers import record
    record(model, (tokens,), "ref.safetensors")

From the command line, with a Python file that defines build_model() and example_inputs():
    record_layers.py my_model.py ref.safetensors
    record_layers.py my_model.py test.safetensors --dtype bfloat16
    record_layers.py my_model.py test.npz --compile        # torch.compile (PyTorch 2)
    record_layers.py my_model.py --gate-only                # the gate alone

safetensors keeps every dtype (bfloat16 and float8 included). NumPy has no bfloat16 or float8:
.npz widens them to float32 (exactly; `compare` then notes the dtype difference).
safetensors is written by hand (struct + json): the format is an 8-byte little-endian header
length, a JSON header, the raw bytes (python3-safetensors is not needed).
"""
import argparse
import importlib.util
import json
import statistics
import struct
import sys
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

TRACE_KEY = "cudoctor.layers"  # the safetensors __metadata__ key of the layer trace
TRACE_SCHEMA = 1

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


def type_name(module):
    cls = type(module)
    return f"{cls.__module__}.{cls.__qualname__}"


def _tensors_in(value, out):
    """Every tensor in an argument / result structure (tuples, lists, dicts), appended to `out`."""
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _tensors_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _tensors_in(v, out)
    return out


def _devices(tensors):
    """The devices the tensors live on. A 0-dim CPU tensor beside tensors on another device is a
    wrapped scalar (PyTorch allows it on any device), not work done on the CPU."""
    real = {str(t.device) for t in tensors if t.dim() > 0}
    return real or {str(t.device) for t in tensors}


def op_kind(name):
    """"aten" and "prim" are PyTorch's own operator sets; any other namespace is a custom
    operator (torch.library, a C++ extension's TORCH_LIBRARY)."""
    namespace = name.split("::", 1)[0]
    return namespace if namespace in ("aten", "prim") else "custom"


class _Layer:
    def __init__(self, key, module_name, call, module):
        self.key, self.module_name, self.call, self.type = key, module_name, call, type_name(module)
        self.tensors, self.devices, self.ops = [], set(), {}  # ops: name -> [kind, count, devices]

    def add_op(self, name, kind, devices):
        entry = self.ops.setdefault(name, [kind, 0, set()])
        entry[1] += 1
        entry[2] |= devices

    def to_json(self, time_ms=None):
        layer = {"name": self.key, "module": self.module_name, "call": self.call, "type": self.type,
                 "devices": sorted(self.devices), "tensors": self.tensors,
                 "ops": [{"op": n, "kind": k, "count": c, "devices": sorted(d)} for n, (k, c, d) in self.ops.items()]}
        if time_ms is not None:
            layer["time_ms"] = time_ms
        return layer


class _CallStack:
    """Forward pre-hooks and hooks on every module: which module call is running now. A module
    that runs more than once gets NAME, NAME@1, NAME@2, … (the names its outputs are saved under);
    the model itself is "output"."""

    def __init__(self, model, on_enter, on_exit):
        self.stack = []
        self._calls = {}
        self._handles = []
        for name, module in model.named_modules():
            name = name or "output"
            self._handles.append(module.register_forward_pre_hook(self._pre(name, on_enter)))
            self._handles.append(module.register_forward_hook(self._post(on_exit)))

    def _pre(self, name, on_enter):
        def hook(module, inputs):
            call = self._calls.get(name, 0)
            self._calls[name] = call + 1
            key = name if call == 0 else f"{name}@{call}"
            self.stack.append(key)
            on_enter(key, name, call, module)
        return hook

    def _post(self, on_exit):
        def hook(module, inputs, output):
            on_exit(self.stack.pop(), module, output)
        return hook

    def reset(self):
        self._calls.clear()
        self.stack.clear()

    def remove(self):
        for h in self._handles:
            h.remove()


class _OpTrace(TorchDispatchMode):
    """Every operator call that reaches the dispatcher, charged to the innermost module running."""

    def __init__(self, recorder):
        super().__init__()
        self._recorder = recorder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        schema = getattr(func, "_schema", None)  # PyTorch 2's higher-order operators have none
        name = schema.name if schema is not None else f"prim::{getattr(func, '__name__', func)}"
        self._recorder.op(name, op_kind(name), _devices(_tensors_in(out, _tensors_in(kwargs, _tensors_in(args, [])))))
        return out


def _autograd_functions():
    """Every torch.autograd.Function subclass defined now (those with their own forward)."""
    seen, todo = [], list(torch.autograd.Function.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return [c for c in seen if "forward" in c.__dict__]


class Recorder:
    """Hooks on every module of `model`: `tensors` fills with what each module returns as the model
    runs, `layers` with each module call's type, devices and operators (with trace=True: ATen and
    custom operators through a TorchDispatchMode, Python autograd.Functions by wrapping their
    forward), and `gate` with the first module call whose output holds a NaN or an Inf."""

    def __init__(self, model, trace=True):
        self.tensors = []
        self.layers = []  # in the order the calls finish, as the tensors
        self.gate = None  # None: every output finite; else {"layer", "type", "nan", "inf"}
        self.nonfinite_layers = 0
        self._open = {}
        self._trace = trace
        self._calls = _CallStack(model, self._enter, self._exit)
        self._patched = []
        self._own_work = False

    @property
    def stack(self):
        return self._calls.stack

    def _enter(self, key, name, call, module):
        self._open[key] = _Layer(key, name, call, module)

    def _exit(self, key, module, output):
        self._own_work = True  # the copies and NaN counts below are the recorder's, not the model's
        try:
            self._record_exit(key, output)
        finally:
            self._own_work = False

    def _record_exit(self, key, output):
        layer = self._open.pop(key)
        before = len(self.tensors)
        self._add(key, output)
        layer.tensors = [n for n, _ in self.tensors[before:]]
        outputs = _tensors_in(output, [])
        layer.devices |= _devices(outputs) if outputs else set()
        self.layers.append(layer)
        nan = sum(int(torch.isnan(t).sum()) for t in outputs if t.is_floating_point() or t.is_complex())
        inf = sum(int(torch.isinf(t).sum()) for t in outputs if t.is_floating_point() or t.is_complex())
        if nan or inf:
            self.nonfinite_layers += 1
            if self.gate is None:
                self.gate = {"layer": key, "type": layer.type, "nan": nan, "inf": inf}

    def op(self, name, kind, devices):
        if self.stack and not self._own_work:
            layer = self._open[self.stack[-1]]
            layer.add_op(name, kind, devices)
            layer.devices |= devices

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

    def _wrap_function(self, cls):
        original = cls.__dict__["forward"]
        forward = original.__func__ if isinstance(original, staticmethod) else original
        name = f"{cls.__module__}.{cls.__qualname__}"

        def wrapped(*args, **kwargs):
            self.op(name, "autograd.Function", _devices(_tensors_in(args, [])))
            return forward(*args, **kwargs)

        cls.forward = staticmethod(wrapped)
        self._patched.append((cls, original))

    def run(self, model, inputs):
        """model(*inputs) under torch.no_grad(), traced when asked. Exceptions propagate; `stack`
        then names the module call that raised (innermost last)."""
        self._calls.reset()
        if not self._trace:
            with torch.no_grad():
                return model(*inputs)
        for cls in _autograd_functions():
            self._wrap_function(cls)
        try:
            with torch.no_grad(), _OpTrace(self):
                return model(*inputs)
        finally:
            for cls, original in reversed(self._patched):
                cls.forward = original
            self._patched.clear()

    def remove(self):
        self._calls.remove()


def time_layers(model, inputs, warmup=3, repeat=10, cuda=False):
    """Each module call's time in milliseconds (the median of `repeat` forward passes after
    `warmup` unmeasured ones; a module's time includes its children's): CUDA events on a GPU,
    time.perf_counter_ns (a monotonic clock) on the CPU. Returns {call name: ms}."""
    runs = {}
    marks = {}

    def enter(key, name, call, module):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)
            start.record()
            marks[key] = start
        else:
            marks[key] = time.perf_counter_ns()

    def leave(key, module, output):
        if cuda:
            end = torch.cuda.Event(enable_timing=True)
            end.record()
            marks[key] = (marks[key], end)
        else:
            marks[key] = (time.perf_counter_ns() - marks[key]) / 1e6

    calls = _CallStack(model, enter, leave)
    try:
        with torch.no_grad():
            for i in range(warmup + repeat):
                calls.reset()
                marks.clear()
                model(*inputs)
                if i < warmup:
                    continue
                if cuda:
                    torch.cuda.synchronize()
                for key, mark in marks.items():
                    runs.setdefault(key, []).append(mark[0].elapsed_time(mark[1]) if cuda else mark)
    finally:
        calls.remove()
    return {key: statistics.median(times) for key, times in runs.items()}


def layer_trace(rec, device, dtype=None, times=None, timing=None):
    """The JSON document `cudoctor inventory` and `cudoctor compare` read (schema 1)."""
    times = times or {}
    return {
        "schema": TRACE_SCHEMA,
        "producer": "cudoctor tools/record_layers.py",
        "torch": torch.__version__,
        "device": str(device),
        "dtype": dtype,
        "timing": timing,
        "gate": {"passed": rec.gate is None, **(rec.gate or {}), "layers_nonfinite": rec.nonfinite_layers},
        "layers": [layer.to_json(times.get(layer.key)) for layer in rec.layers],
    }


def write_dump(path, tensors, trace):
    """The tensors to `path` (.npz, or else .safetensors) and the trace beside them: in the
    safetensors header's __metadata__ (key "cudoctor.layers", a JSON string: the format's metadata
    values are strings), for .npz in the sidecar PATH.layers.json (an npz has no metadata place,
    and a foreign member would break np.load(...)'s users who load every member)."""
    text = json.dumps(trace, separators=(",", ":"))
    if str(path).endswith(".npz"):
        write_npz(path, tensors)
        with open(str(path) + ".layers.json", "w") as f:
            f.write(text)
    else:
        write_safetensors(path, tensors, {"producer": "cudoctor tools/record_layers.py", "torch": torch.__version__, TRACE_KEY: text})


def _model_device(model, inputs):
    for p in model.parameters():
        return p.device
    for t in _tensors_in(list(inputs), []):
        return t.device
    return torch.device("cpu")


def record(model, inputs, path, warmup=3, repeat=10, timing=True, trace=True):
    """Runs model(*inputs) under torch.no_grad() with hooks on every module and writes what each
    module returned to `path` (.safetensors, or .npz) with the layer trace: types, devices,
    operators (trace=True), the gate, and with timing=True each call's median time over `repeat`
    passes after `warmup`. Returns the Recorder (`tensors`, `layers`, `gate`); the gate's failure
    is not raised: rec.gate names the first layer with a NaN or an Inf (no timings are taken then)."""
    rec = Recorder(model, trace=trace)
    try:
        rec.run(model, inputs)
    finally:
        rec.remove()
    device = _model_device(model, inputs)
    times, how = None, None
    if timing and rec.gate is None:
        cuda = device.type == "cuda"
        times = time_layers(model, inputs, warmup, repeat, cuda)
        how = {"clock": "cuda events" if cuda else "monotonic", "warmup": warmup, "repeat": repeat, "statistic": "median", "unit": "ms"}
    write_dump(path, rec.tensors, layer_trace(rec, device, None, times, how))
    return rec


def _load(path):
    sys.dont_write_bytecode = True  # no __pycache__ left beside the user's model file
    spec = importlib.util.spec_from_file_location("user_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gate_failed(message):
    print(f"record_layers: gate failed: {message}", file=sys.stderr)
    sys.exit(1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model_file", help="a Python file defining build_model() and example_inputs()")
    p.add_argument("out", nargs="?", help="output .safetensors or .npz (not with --gate-only)")
    p.add_argument("--dtype", choices=["float32", "float64", "float16", "bfloat16"], help="cast the model and its floating inputs")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, …")
    p.add_argument("--compile", action="store_true", help="run torch.compile(model) (PyTorch 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=int, default=3, help="forward passes before timing (default 3)")
    p.add_argument("--repeat", type=int, default=10, help="timed forward passes; each layer's time is their median (default 10)")
    p.add_argument("--threads", type=int, help="torch.set_num_threads(N) before running: steadier CPU timings with 1")
    p.add_argument("--no-timing", action="store_true", help="record outputs and operators only")
    p.add_argument("--no-ops", action="store_true", help="do not trace operators (no TorchDispatchMode)")
    p.add_argument("--gate-only", action="store_true", help="one forward pass, checked for exceptions, NaN and Inf; writes nothing")
    args = p.parse_args(argv)
    if not args.gate_only and not args.out:
        p.error("OUT is needed (or --gate-only)")
    if args.warmup < 0 or args.repeat < 1:
        p.error("--warmup must be ≥ 0 and --repeat ≥ 1")

    if args.threads is not None:
        if args.threads < 1:
            p.error("--threads must be ≥ 1")
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    user = _load(args.model_file)
    model = user.build_model().eval().to(args.device)
    inputs = tuple(x.to(args.device) if isinstance(x, torch.Tensor) else x for x in user.example_inputs())
    if args.dtype:
        dtype = getattr(torch, args.dtype)
        model = model.to(dtype)
        inputs = tuple(x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs)
    rec = Recorder(model, trace=not args.no_ops and not args.compile)  # before torch.compile, so Dynamo sees the hooks
    run_model = model
    if args.compile:
        if not hasattr(torch, "compile"):
            rec.remove()
            sys.exit("record_layers: torch.compile needs PyTorch 2")
        run_model = torch.compile(model)
    # The gate: one forward pass, before any comparison is worth reading.
    try:
        rec.run(run_model, inputs)
    except Exception as e:  # noqa: BLE001 — any failure of the user's model is the gate's answer
        where = rec.stack[-1] if rec.stack else "output"
        kind = next((l.type for l in rec._open.values() if l.key == where), "")
        _gate_failed(f"layer '{where}'" + (f" ({kind})" if kind else "") + f" raised {type(e).__name__}: {e}")
    finally:
        rec.remove()
    if rec.gate is not None:
        g = rec.gate
        others = rec.nonfinite_layers - 1
        message = (f"layer '{g['layer']}' ({g['type']}) output has {g['nan']} NaN and {g['inf']} Inf"
                   + (f" (the first of {rec.nonfinite_layers} layers with non-finite output, in the order they ran)" if others else ""))
        if args.gate_only or not args.out:
            _gate_failed(message)
    elif args.gate_only:
        print(f"record_layers: gate passed: {len(rec.layers)} module calls, every output finite")
        return

    times, how = None, None
    if not args.no_timing and rec.gate is None:
        cuda = torch.device(args.device).type == "cuda"
        times = time_layers(run_model, inputs, args.warmup, args.repeat, cuda)
        how = {"clock": "cuda events" if cuda else "monotonic", "threads": torch.get_num_threads(), "warmup": args.warmup, "repeat": args.repeat, "statistic": "median",
               "unit": "ms"}
    write_dump(args.out, rec.tensors, layer_trace(rec, args.device, args.dtype, times, how))
    if rec.gate is not None:
        _gate_failed(message + f"; the dump was written to {args.out} for inspection, without timings")
    print(f"record_layers: {len(rec.tensors)} tensors, {len(rec.layers)} module calls"
          + (f", timed over {args.repeat} runs" if times else "") + f" -> {args.out}")


if __name__ == "__main__":
    main()
