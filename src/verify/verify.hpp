#pragma once
// `cudoctor verify`: the verification chain, level by level.
//   1. driver and GPU visible — libcuda (cuInit, version, devices) and NVML, CUDA_VISIBLE_DEVICES
//   2. toolkit works — nvcc (or NVRTC) compiles a kernel; it runs and every thread wrote its
//      value; cuBLAS runs a GEMM that matches the CPU
//   3. cuDNN and frameworks — cuDNN loads, reports its version, makes a handle; each framework
//      initialises CUDA in its own interpreter, and that interpreter's /proc/self/maps names the
//      libcudart / cuBLAS / cuDNN files it really loaded
// A step that needs a working GPU is SKIPped (with the reason) once level 1 failed; steps that
// do not (compiling, loading cuDNN, importing a framework) still run. Every driver library is
// loaded only in isolated children; every program runs through Host::run with a time limit.
#include <chrono>
#include <string>

#include "host/host.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"
#include "verify/report.hpp"

namespace cudoctor::verify {

struct Options {
    int level = 3;                                        ///< stop after this level (1–3)
    std::string compiler = "auto";                        ///< "auto" (nvcc, else NVRTC) | "nvcc" | "nvrtc"
    std::chrono::milliseconds call_timeout{20000};        ///< each isolated child (driver calls)
    std::chrono::milliseconds compile_timeout{300000};    ///< nvcc, or NVRTC (plus one call_timeout for its launch)
    std::chrono::milliseconds run_timeout{60000};         ///< the compiled check program
    std::chrono::milliseconds framework_timeout{180000};  ///< each framework's interpreter
};

/// Runs the levels up to `options.level` on the machine `host` shows, using the inventory and
/// findings `snap` holds (from probe_machine + rules::evaluate). Never throws for a broken
/// machine: every trouble is a FAIL step with its reason.
Report run_verify(const host::Host& host, const kb::Kb& kb, const snapshot::Snapshot& snap, const Options& options);

}  // namespace cudoctor::verify
