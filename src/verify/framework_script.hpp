#pragma once
// The Python program level 3 runs with `python -c` in a framework's own interpreter: import the
// framework, let it initialise CUDA, list its devices, multiply two small matrices on the GPU
// and on the CPU, and list every shared library the interpreter has mapped (/proc/self/maps).
// Its last line is "CUDOCTOR-RESULT {json}".
#include <string_view>

namespace cudoctor::verify {

inline constexpr std::string_view kFrameworkResultPrefix = "CUDOCTOR-RESULT ";

inline constexpr std::string_view kFrameworkScript = R"py(
import sys, os, json
sys.path = [p for p in sys.path if p not in ("", ".", os.getcwd())]
name = sys.argv[1] if len(sys.argv) > 1 else ""
out = {"framework": name, "python": sys.version.split()[0], "executable": sys.executable}
try:
    if name == "torch":
        import torch
        out["version"] = torch.__version__
        out["cuda_build"] = torch.version.cuda
        try:
            out["cudnn"] = torch.backends.cudnn.version()
        except Exception as e:
            out["cudnn_error"] = str(e)
        out["available"] = bool(torch.cuda.is_available())
        if out["available"]:
            n = torch.cuda.device_count()
            out["device_count"] = n
            out["devices"] = [torch.cuda.get_device_name(i) for i in range(n)]
            g = torch.Generator().manual_seed(7)
            a = torch.rand(64, 64, generator=g) - 0.5
            b = torch.rand(64, 64, generator=g) - 0.5
            ref = (a.double() @ b.double()).float()
            got = (a.cuda() @ b.cuda()).cpu()
            out["matmul_max_abs_err"] = float((ref - got).abs().max())
    elif name == "tensorflow":
        import tensorflow as tf
        out["version"] = tf.__version__
        out["cuda_build"] = tf.sysconfig.get_build_info().get("cuda_version") if tf.test.is_built_with_cuda() else None
        gpus = tf.config.list_physical_devices("GPU")
        out["available"] = len(gpus) > 0
        out["device_count"] = len(gpus)
        out["devices"] = [d.name for d in gpus]
    elif name in ("jax", "jaxlib"):
        import jax
        out["version"] = jax.__version__
        out["backend"] = jax.default_backend()
        try:
            gpus = jax.devices("gpu")
        except RuntimeError as e:
            gpus = []
            out["init_error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
        out["cuda_build"] = "plugin" if gpus or "init_error" in out else None
        out["available"] = len(gpus) > 0
        out["device_count"] = len(gpus)
        out["devices"] = [str(d) for d in gpus]
    elif name == "cupy":
        import cupy
        out["version"] = cupy.__version__
        out["cuda_build"] = str(cupy.cuda.runtime.runtimeGetVersion())
        n = cupy.cuda.runtime.getDeviceCount()
        out["available"] = n > 0
        out["device_count"] = n
    elif name == "cv2":
        import cv2
        out["version"] = cv2.__version__
        n = cv2.cuda.getCudaEnabledDeviceCount()
        out["cuda_build"] = "yes" if n >= 0 and "CUDA" in cv2.getBuildInformation() else None
        out["available"] = n > 0
        out["device_count"] = n
    elif name == "onnxruntime":
        import onnxruntime
        out["version"] = onnxruntime.__version__
        providers = onnxruntime.get_available_providers()
        out["cuda_build"] = "yes" if "CUDAExecutionProvider" in providers else None
        out["available"] = "CUDAExecutionProvider" in providers
    else:
        out["unsupported"] = True
except BaseException as e:
    out["error"] = type(e).__name__ + ": " + (str(e).splitlines()[0] if str(e) else "")
libs = []
try:
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6:
                p = parts[5].strip()
                if p.startswith("/") and ".so" in p and p not in libs:
                    libs.append(p)
except OSError as e:
    out["maps_error"] = str(e)
out["libraries"] = libs
sys.stdout.write("\nCUDOCTOR-RESULT " + json.dumps(out) + "\n")
)py";

}  // namespace cudoctor::verify
