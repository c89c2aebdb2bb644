#include "recipe/request.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/text.hpp"

namespace cudoctor::recipe {

namespace {

/// Lower case, "NVIDIA " and "GeForce " dropped, single spaces: "NVIDIA GeForce RTX 4060 Ti" → "rtx 4060 ti".
std::string normalized_gpu_name(std::string_view name) {
    const std::string lower = text::to_lower(name);
    std::string out;
    for (auto word : text::split(lower, ' ')) {
        if (word.empty() || word == "nvidia" || word == "geforce") continue;
        out += (out.empty() ? "" : " ") + std::string(word);
    }
    return out;
}

bool is_digits_and_dots(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

}  // namespace

std::string torch_variant_of(const Version& cuda) { return fmt::format("cu{}{}", cuda.major(), cuda.minor()); }

Expected<FrameworkSpec> parse_framework(std::string_view text_in) {
    const std::string text = text::to_lower(text::trim(text_in));
    std::string name = text, version;
    for (std::string_view sep : {"==", "=", " "}) {
        if (auto at = text.find(sep); at != std::string::npos) {
            name = std::string(text::trim(std::string_view(text).substr(0, at)));
            version = std::string(text::trim(std::string_view(text).substr(at + sep.size())));
            break;
        }
    }
    if (name == "pytorch") name = "torch";
    if (name == "tf" || name == "tensorflow-gpu") name = "tensorflow";
    if (name != "torch" && name != "tensorflow" && name != "jax") {
        return fail(Errc::usage,
                    fmt::format("--framework '{}': expected torch==X.Y, tensorflow==X.Y or jax==X.Y.Z", text::printable(text_in)));
    }
    FrameworkSpec spec{name, {}};
    if (version.empty()) return spec;
    if (version.ends_with(".*")) version.resize(version.size() - 2);
    auto v = Version::parse(version);
    if (!is_digits_and_dots(version) || !v) {
        return fail(Errc::usage, fmt::format("--framework '{}': '{}' is not a version like 2.4 or 2.4.1", text::printable(text_in),
                                             text::printable(version)));
    }
    spec.version = *v;
    return spec;
}

Expected<OsSpec> parse_os(std::string_view text_in, const kb::Kb& kb) {
    std::string text = text::to_lower(text::trim(text_in));
    OsSpec spec;
    if (text == "wsl" || text == "wsl2") text = "wsl-ubuntu-22.04";
    for (std::string_view prefix : {"wsl-", "wsl2-"}) {
        if (text.starts_with(prefix)) {
            spec.wsl = true;
            text = text.substr(prefix.size());
        }
    }
    // "ubuntu-22.04", "ubuntu22.04", "ubuntu 22.04": the name, then the first digit.
    const auto digit = text.find_first_of("0123456789");
    if (digit != std::string::npos) {
        spec.id = std::string(text::trim(std::string_view(text).substr(0, digit)));
        while (!spec.id.empty() && (spec.id.back() == '-' || spec.id.back() == '_')) spec.id.pop_back();
        spec.version = text.substr(digit);
    }
    if (!spec.id.empty() && kb.distro_release(spec.id, spec.version)) {
        if (spec.wsl && spec.id != "ubuntu")
            return fail(Errc::usage, "--os '" + text::printable(text_in) + "': NVIDIA's WSL repository is for Ubuntu (wsl-ubuntu-22.04)");
        return spec;
    }
    std::string known;
    for (const auto& d : kb.distro_table()) known += (known.empty() ? "" : ", ") + d.distro + "-" + d.version;
    return fail(Errc::usage,
                fmt::format("--os '{}': not a release the knowledge base knows ({}, or wsl-ubuntu-22.04)", text::printable(text_in), known));
}

Expected<GpuSpec> resolve_gpu(std::string_view text_in, const kb::Kb& kb) {
    const std::string text(text::trim(text_in));
    // A compute capability: "8.9", "sm_89", "12.0".
    std::string cc = text;
    if (text::starts_with(text::to_lower(cc), "sm_")) {
        const std::string digits = cc.substr(3);
        if (digits.size() >= 2 && is_digits_and_dots(digits)) cc = digits.substr(0, digits.size() - 1) + "." + digits.back();
    }
    if (is_digits_and_dots(cc)) {
        auto row = kb.arch_support(cc);
        if (!row || row->compute_capability.empty())
            return fail(Errc::usage, "--gpu '" + text::printable(text_in) + "': compute capability unknown to cuda_arch_support.tsv");
        return GpuSpec{"", row->compute_capability, row->architecture, false};
    }
    const std::string wanted = normalized_gpu_name(text);
    if (wanted.empty()) return fail(Errc::usage, "--gpu: empty GPU name");
    std::vector<const kb::GpuModel*> exact, partial;
    for (const auto& g : kb.gpus()) {
        const std::string name = normalized_gpu_name(g.info.name);
        if (name == wanted) exact.push_back(&g);
        else if (text::contains(name, wanted)) partial.push_back(&g);
    }
    auto& hits = exact.empty() ? partial : exact;
    std::set<std::string> names;
    for (const auto* g : hits) names.insert(g->info.name);
    if (names.empty())
        return fail(Errc::usage, "--gpu '" + text::printable(text_in) +
                                     "': no GPU of that name in gpus.tsv (give its compute capability, e.g. --gpu 8.9)");
    if (names.size() > 1) {
        std::string list;
        std::size_t n = 0;
        for (const auto& name : names) {
            if (n++ == 5) {
                list += ", …";
                break;
            }
            list += (list.empty() ? "" : ", ") + name;
        }
        return fail(Errc::usage, "--gpu '" + text::printable(text_in) + "' matches several GPUs: " + list);
    }
    const auto* g = hits.front();
    if (g->info.compute_capability.empty())
        return fail(Errc::usage, "--gpu '" + text::printable(text_in) + "': the compute capability of " + g->info.name +
                                     " is unknown; give it (--gpu X.Y)");
    return GpuSpec{g->info.name, g->info.compute_capability, g->info.architecture, text::starts_with(g->category, "Datacenter")};
}

}  // namespace cudoctor::recipe
