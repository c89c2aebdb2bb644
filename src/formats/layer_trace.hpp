#pragma once
// The layer trace tools/record_layers.py writes beside a model's recorded outputs (schema 1): for
// each module call, in the order the calls finished, its type, the devices it touched, the
// operators it dispatched itself (ATen, prim, custom namespaces, Python autograd.Functions) and
// its time per call; and the gate (the first layer whose output held a NaN or an Inf).
// Stored as a JSON string in a safetensors header's __metadata__["cudoctor.layers"], or in the
// sidecar file DUMP.layers.json beside an .npz.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::formats {

/// The safetensors __metadata__ key of the trace, and the sidecar's suffix for other dumps.
inline constexpr std::string_view kLayerTraceKey = "cudoctor.layers";
inline constexpr std::string_view kLayerTraceSidecar = ".layers.json";

/// What an operator is, for a move to another backend: PyTorch's own sets (aten, prim), an
/// operator of any other namespace (a C++ extension, torch.library), or a Python
/// torch.autograd.Function (its forward runs Python, which an exporter or compiler may not see).
enum class OpKind { aten, prim, custom, autograd_function };
const char* to_string(OpKind kind);

struct OpUse {
    std::string name;  ///< "aten::addmm", "mylib::fused_gelu", "model.StraightThrough"
    OpKind kind = OpKind::aten;
    std::uint64_t count = 0;           ///< calls in this layer
    std::vector<std::string> devices;  ///< of its tensors ("cpu", "cuda:0"), sorted
};

struct LayerRecord {
    std::string name;                  ///< the call's name: the module's, with "@N" for its N+1-th call
    std::string module;                ///< the module's name ("output" for the model)
    std::string type;                  ///< "torch.nn.modules.linear.Linear"
    std::vector<std::string> devices;  ///< what its own operators and its outputs touched, sorted
    std::vector<std::string> tensors;  ///< the names its outputs were saved under
    std::vector<OpUse> ops;            ///< the operators it dispatched itself (not its children)
    std::optional<double> time_ms;     ///< median time per call, its children included
};

struct LayerTrace {
    int schema = 1;
    std::string torch;   ///< torch.__version__ of the recording
    std::string device;  ///< the run's device ("cpu", "cuda:0")
    std::string dtype;   ///< the --dtype cast, "" when none
    /// How the times were taken ("monotonic", "cuda events"), "" when the trace has none.
    std::string clock;
    unsigned warmup = 0, repeat = 0;
    bool gate_passed = true;
    std::string gate_layer;  ///< the first layer with a NaN or an Inf in its output
    std::uint64_t gate_nan = 0, gate_inf = 0;
    std::vector<LayerRecord> layers;  ///< in the order the calls finished

    bool timed() const { return !clock.empty(); }
    /// The layer of that call name, or nullptr.
    const LayerRecord* find(std::string_view name) const;
};

/// Parses a trace document. Errc::parse for text that is not a JSON object ("not valid JSON: …"),
/// a schema other than 1 ("layer trace schema 2: this cudoctor reads schema 1"), a missing or
/// mistyped member ("layers[3]: 'ops' is not a list"), an unknown operator kind, a negative or
/// non-finite time, or two layers of one name. Members it does not know are ignored.
Expected<LayerTrace> parse_layer_trace(std::string_view text);

/// The trace in a safetensors file's metadata: std::nullopt when the key is absent (a dump
/// written by another tool), else parse_layer_trace's answer.
std::optional<Expected<LayerTrace>> layer_trace_in_metadata(const std::map<std::string, std::string>& metadata);

}  // namespace cudoctor::formats
