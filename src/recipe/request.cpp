#include "recipe/request.hpp"

#include <algorithm>
#include <cctype>
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

bool VersionClause::allows(const Version& v) const {
    if (op == "==" || op == "!=") {
        // "==2.5.*": any 2.5.x; "==2.4": exactly 2.4 (= 2.4.0: trailing zeros pad).
        const bool equal = prefix ? v.truncated(version.size()) == version : v == version;
        return op == "==" ? equal : !equal;
    }
    if (op == ">=") return v >= version;
    if (op == "<=") return v <= version;
    if (op == ">") return v > version;
    if (op == "<") return v < version;
    // "~=0.4.30": >= 0.4.30 and == 0.4.*; "~=2.4": >= 2.4 and == 2.*.
    return v >= version && v.truncated(version.size() - 1) == version.truncated(version.size() - 1);
}

std::string VersionClause::str() const { return op + version.str() + (prefix ? ".*" : ""); }

bool FrameworkSpec::admits(const Version& release) const {
    if (clauses.empty()) return true;
    auto all_allow = [&](const Version& v) {
        return std::all_of(clauses.begin(), clauses.end(), [&](const VersionClause& c) { return c.allows(v); });
    };
    if (release.size() >= 3) return all_allow(release);
    // A series (torch 2.4, tensorflow 2.15): its patch releases 2.4.0, 2.4.1, … Releases have
    // had at most a handful of patches; 2.4.0 … 2.4.99 stands for "some 2.4.x".
    for (int patch = 0; patch < 100; ++patch)
        if (all_allow(Version({release.major(), release.minor(), patch}))) return true;
    return false;
}

std::string FrameworkSpec::clause_text() const {
    std::string out;
    for (const auto& c : clauses) out += (out.empty() ? "" : ",") + c.str();
    return out;
}

namespace {

/// One clause of a specifier list: "<op><version>[.*]". Errc::usage naming what is wrong.
Expected<VersionClause> parse_clause(std::string_view clause, std::string_view whole) {
    VersionClause c;
    for (std::string_view op : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
        if (clause.starts_with(op)) {
            c.op = std::string(op);
            break;
        }
    }
    if (c.op == "===")
        return fail(Errc::usage, fmt::format("--framework '{}': arbitrary equality (===) is not supported; use ==", text::printable(whole)));
    if (c.op.empty())
        return fail(Errc::usage, fmt::format("--framework '{}': '{}' is not a version clause like >=2.3, <2.6, ==2.4.*, ~=2.4.1",
                                             text::printable(whole), text::printable(clause)));
    std::string version(text::trim(clause.substr(c.op.size())));
    if (version.ends_with(".*")) {
        if (c.op != "==" && c.op != "!=")
            return fail(Errc::usage, fmt::format("--framework '{}': '.*' goes only with == or != (PEP 440)", text::printable(whole)));
        c.prefix = true;
        version.resize(version.size() - 2);
    }
    auto v = Version::parse(version);
    if (!is_digits_and_dots(version) || !v || version.back() == '.')
        return fail(Errc::usage, fmt::format("--framework '{}': '{}' is not a version like 2.4 or 2.4.1", text::printable(whole),
                                             text::printable(version)));
    if (c.op == "~=" && v->size() < 2)
        return fail(Errc::usage, fmt::format("--framework '{}': ~= needs at least two parts (~=2.4, not ~=2)", text::printable(whole)));
    c.version = *v;
    return c;
}

}  // namespace

Expected<FrameworkSpec> parse_framework(std::string_view text_in) {
    const std::string text = text::to_lower(text::trim(text_in));
    // The name runs to the first operator or space: "torch>=2.3,<2.6", "torch==2.4", "torch 2.4".
    const auto name_end = text.find_first_of("=<>!~ ");
    std::string name(text::trim(std::string_view(text).substr(0, name_end)));
    std::string rest = name_end == std::string::npos ? "" : std::string(text::trim(std::string_view(text).substr(name_end)));
    if (name == "pytorch") name = "torch";
    if (name == "tf" || name == "tensorflow-gpu") name = "tensorflow";
    if (name != "torch" && name != "tensorflow" && name != "jax") {
        return fail(Errc::usage, fmt::format("--framework '{}': expected torch==X.Y, tensorflow==X.Y or jax==X.Y.Z, or PEP 440 "
                                             "specifiers (torch>=2.3,<2.6)",
                                             text::printable(text_in)));
    }
    FrameworkSpec spec{name, {}, {}};
    if (rest.empty()) return spec;
    // The forms before specifiers: "torch=2.4" and "torch 2.4" mean torch==2.4.
    if (rest.front() == '=' && !rest.starts_with("==")) rest = "=" + rest;
    if (std::isdigit(static_cast<unsigned char>(rest.front()))) rest = "==" + rest;
    std::vector<VersionClause> clauses;
    for (auto part : text::split(rest, ',')) {
        const auto clause = text::trim(part);
        if (clause.empty())
            return fail(Errc::usage, fmt::format("--framework '{}': an empty clause between commas", text::printable(text_in)));
        auto c = parse_clause(clause, text_in);
        if (!c) return Unexpected<Error>(c.error());
        clauses.push_back(std::move(*c));
    }
    // One == (a release or a series, "2.4" or "2.4.*") keeps the meaning it always had: that
    // release series, whose candidates come from the tables directly.
    if (clauses.size() == 1 && clauses[0].op == "==") {
        spec.version = clauses[0].version;
        return spec;
    }
    spec.clauses = std::move(clauses);
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
