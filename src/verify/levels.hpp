#pragma once
// What the levels share: the inputs, and what level 1 learnt about the driver.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/style.hpp"
#include "verify/check_output.hpp"
#include "verify/verify.hpp"

namespace cudoctor::verify::detail {

struct Context {
    const host::Host& host;
    const kb::Kb& kb;
    const snapshot::Snapshot& snap;
    const Options& options;
    // Filled by level 1.
    bool driver_usable = false;      ///< cuInit succeeded and at least one GPU is visible
    std::string driver_trouble;      ///< why not, one line ("no NVIDIA driver: …")
    std::optional<int> driver_cuda;  ///< cuDriverGetVersion (13000)
    std::string driver_library;      ///< the libcuda that answered cuInit ("/usr/lib/x86_64-linux-gnu/libcuda.so.1")
    std::string compute_capability;  ///< of GPU 0, "8.9" ("" when unknown)
};

Level level1(Context& ctx);
Level level2(Context& ctx);
Level level3(Context& ctx);

/// Fails `step` with the cause and fix of a CUDA error a check program or launch reported
/// (35 insufficient driver, 209 no kernel image, 222 PTX too new, …). `toolkit` is the toolkit
/// whose runtime the program carries (nullptr for a driver-API launch): 35 blames the driver
/// only when level 1's driver CUDA version is below that toolkit's.
void explain_cuda_error(Step& step, const Context& ctx, const CheckOutcome& error, const snapshot::Toolkit* toolkit = nullptr);

/// The reason a GPU step is skipped after level 1 failed.
std::string needs_gpu(const Context& ctx);
/// "23.6 GiB".
std::string gib(std::uint64_t bytes);

}  // namespace cudoctor::verify::detail
