#include "verify/check_output.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "common/text.hpp"
#include "driver/driver_calls.hpp"
#include "driver/kernel_source.hpp"
#include "kb/toolkit_release.hpp"
#include "recipe/install.hpp"
#include "verify/causes.hpp"
#include "verify/levels.hpp"

namespace cudoctor::verify {
namespace {

constexpr std::string_view kPrefix = "cudoctor-check: ";

std::optional<unsigned long long> number(std::string_view s) {
    unsigned long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    for (auto w : text::split(s, ' '))
        if (!w.empty()) out.push_back(w);
    return out;
}

}  // namespace

std::optional<CheckOutcome> parse_check_output(std::string_view output) {
    std::string_view line;
    for (auto l : text::split(output, '\n'))
        if (l.starts_with(kPrefix)) line = l.substr(kPrefix.size());
    line = text::trim(line);
    if (line.empty()) return std::nullopt;
    const auto w = words(line);
    CheckOutcome o;
    if (w.size() == 3 && w[0] == "kernel" && w[1] == "ok") {
        auto n = number(w[2]);
        if (!n) return std::nullopt;
        o.kind = CheckOutcome::Kind::ok;
        o.summary = fmt::format("all {} threads wrote their value", *n);
        return o;
    }
    if (w.size() == 6 && w[0] == "kernel" && w[1] == "wrong") {
        auto wrong = number(w[2]), n = number(w[3]), first = number(w[4]), value = number(w[5]);
        if (!wrong || !n || !first || !value) return std::nullopt;
        o.kind = CheckOutcome::Kind::wrong;
        o.summary = fmt::format("{} of {} threads wrote a wrong value; the first at index {}: 0x{:08X}{}", *wrong, *n, *first, *value,
                                *value == 0xEFEFEFEFull ? " (still the poison: that thread never ran)" : "");
        return o;
    }
    if (w.size() == 3 && w[0] == "gemm" && (w[1] == "ok" || w[1] == "wrong")) {
        o.kind = w[1] == "ok" ? CheckOutcome::Kind::ok : CheckOutcome::Kind::wrong;
        o.summary =
            fmt::format("the 64×64 SGEMM {} the CPU reference (largest difference {})", w[1] == "ok" ? "matches" : "differs from", w[2]);
        return o;
    }
    if (w.size() >= 2 && w[0] == "gemm" && w[1] == "unavailable") {
        o.kind = CheckOutcome::Kind::unavailable;
        o.summary = "cuBLAS cannot be loaded: " + std::string(line.substr(line.find("unavailable") + 12));
        return o;
    }
    if (w.size() >= 4 && w[0] == "error") {
        auto code = number(w[2]);
        if (!code) return std::nullopt;
        o.kind = CheckOutcome::Kind::error;
        o.what = std::string(w[1]);
        o.code = static_cast<int>(*code);
        std::string_view name = w[3];
        if (name.ends_with(':')) name.remove_suffix(1);
        o.name = std::string(name);
        if (auto colon = line.find(": "); colon != std::string_view::npos) o.text = std::string(text::trim(line.substr(colon + 2)));
        o.summary = fmt::format("{} failed: {} ({}){}", o.what, o.name, o.code, o.text.empty() ? "" : ": " + o.text);
        return o;
    }
    return std::nullopt;
}

namespace detail {

void explain_cuda_error(Step& step, const Context& ctx, const CheckOutcome& error, const snapshot::Toolkit* toolkit) {
    step.status = Status::fail;
    switch (error.code) {
        case 35: {  // cudaErrorInsufficientDriver (a runtime code; the driver API has none)
            const auto runtime = toolkit ? Version::parse(toolkit->version) : std::nullopt;
            const auto driver = ctx.driver_cuda ? Version::parse(driver::cuda_version_text(*ctx.driver_cuda)) : std::nullopt;
            if (runtime && driver && runtime->truncated(2) <= *driver) {
                // Level 1 proved this driver runs the toolkit's CUDA: the runtime is not newer. The
                // CUDA runtime answers 35 too when it finds no usable libcuda.so.1 at all.
                blame(step, ctx.snap, {},
                      "cudaErrorInsufficientDriver, yet the driver runs CUDA ≤ " + driver->str() + ", enough for this toolkit's CUDA " +
                          runtime->truncated(2).str() +
                          ": the program's CUDA runtime did not reach that driver. It found no libcuda.so.1 through the loader "
                          "path, or not the one level 1 used.",
                      "ldconfig -p | grep 'libcuda.so.1'   # the driver's libcuda must be in the loader cache" +
                          (ctx.driver_library.empty() ? std::string()
                                                      : "\n# level 1 used " + ctx.driver_library + "; if the cache lacks its folder:\n" +
                                                            "export LD_LIBRARY_PATH=" + host::dirname(ctx.driver_library) +
                                                            "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"));
                return;
            }
            std::optional<int> branch;
            if (toolkit)
                if (auto min = kb::min_driver_for(ctx.kb, *toolkit)) branch = min->major();
            blame(step, ctx.snap, {"driver-too-old-for-toolkit", "driver-too-old-for-framework"},
                  "cudaErrorInsufficientDriver: the toolkit's CUDA runtime is newer than the driver" +
                      (ctx.driver_cuda ? " (it runs CUDA ≤ " + driver::cuda_version_text(*ctx.driver_cuda) + ")" : std::string()) + ".",
                  recipe::driver_fix(ctx.snap, ctx.kb, branch));
            return;
        }
        case 209:
            blame(step, ctx.snap, {"gpu-arch-unsupported-by-toolkit"},
                  "No kernel image for this GPU (cudaErrorNoKernelImageForDevice): the program has neither SASS for compute "
                  "capability " +
                      ctx.compute_capability + " nor PTX the driver could compile.",
                  "nvcc -arch=sm_" + ctx.compute_capability + " …   # build for this GPU");
            return;
        case 222:
            blame(step, ctx.snap, {"driver-too-old-for-toolkit"}, cu_result_meaning(222) + ".", recipe::driver_fix(ctx.snap, ctx.kb));
            return;
        default: {
            std::string meaning = cu_result_meaning(error.code);
            blame(step, ctx.snap, {}, meaning.empty() ? error.name + " from " + error.what + "." : meaning + ".",
                  "sudo dmesg | grep -i -E 'nvrm|xid' | tail");
        }
    }
}

}  // namespace detail
}  // namespace cudoctor::verify
