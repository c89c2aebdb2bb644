#pragma once
// `cudoctor inventory TRACE`'s core: the operator inventory of a recorded model (step 1 of a move
// off hand-written CUDA): each operator with its call count and the layers that dispatched it,
// and what needs attention on another backend — custom operators, Python autograd.Functions,
// operators that ran on the CPU in a run on another device (a fallback).
#include <cstdint>
#include <string>
#include <vector>

#include "formats/layer_trace.hpp"

namespace cudoctor::operators {

struct OperatorUse {
    std::string name;
    formats::OpKind kind = formats::OpKind::aten;
    std::uint64_t count = 0;           ///< calls in the whole forward pass
    std::vector<std::string> layers;   ///< the layers that dispatched it themselves, in run order
    std::vector<std::string> devices;  ///< of its tensors, over all calls, sorted
};

enum class Reason { custom_operator, autograd_function, cpu_fallback };
const char* to_string(Reason r);

struct Attention {
    Reason reason = Reason::custom_operator;
    std::string op;
    std::vector<std::string> layers;
    std::vector<std::string> types;  ///< each layer's module type ("" when the trace has none)
    std::string why;                 ///< one sentence for the reader
};

struct Inventory {
    std::string source;  ///< the file it was read from
    std::string torch, device, dtype;
    std::size_t module_calls = 0;
    std::uint64_t operator_calls = 0;
    bool gate_passed = true;
    std::string gate_layer;
    std::vector<OperatorUse> ops;  ///< most calls first, then by name
    std::vector<Attention> attention;
};

/// The run's device: the trace's own, else the device most layers touched ("" when none did).
std::string run_device(const formats::LayerTrace& trace);

/// Counts every operator of `trace` and picks what needs attention: each custom operator, each
/// autograd.Function, and each operator with a "cpu" tensor in a run whose device is not the CPU.
Inventory build_inventory(const formats::LayerTrace& trace, std::string source);

}  // namespace cudoctor::operators
