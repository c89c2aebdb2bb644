#include "recipe/render.hpp"

#include <sstream>

#include <fmt/format.h>

#include "common/text.hpp"
#include "report/style.hpp"

namespace cudoctor::recipe {

namespace {

std::string target_line(const Target& t) {
    std::string gpu = t.gpu_name.empty() ? "compute " + t.compute_capability : t.gpu_name + " (compute " + t.compute_capability + ")";
    if (t.compute_capability.empty()) gpu = "no visible GPU";
    std::string os = t.distro.id.empty() ? "an unknown OS" : t.distro.id + " " + t.distro.version;
    if (t.distro.wsl) os += " under WSL2";
    std::string driver = t.driver ? ", driver " + t.driver->str() : (t.distro.wsl ? "" : ", no driver");
    return gpu + " on " + os + driver;
}

std::string single_quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// `set -e` does not stop a script at a failing command that is not the last of an && list
// (`v=$(…) && [ … ] && echo ok` fails silently and the next step runs): every check, and every
// command with an && list, runs as the condition of an `if` that stops the script. The newline
// before the closing brace keeps a trailing "# comment" of the command from swallowing it.
std::string stopping_command(const std::string& command, const std::string& message) {
    if (command.starts_with("#") || command.find("&&") == std::string::npos) return command + "\n";
    return "if ! { " + command + "\n}; then echo " + single_quoted(message) + " >&2; exit 1; fi\n";
}

// A check is judged by the last command of each pipeline (`ldconfig -p | grep -q libcudart`:
// under pipefail ldconfig's SIGPIPE, when grep stops at the first match, would fail it).
std::string stopping_check(const std::string& check, const std::string& message) {
    return "if ! ( set +o pipefail\n" + check + "\n); then echo " + single_quoted(message) + " >&2; exit 1; fi\n";
}

// A machine that shows no GPU (a VM without passthrough) gets no driver step: say so, and what
// the machine can still do, instead of letting an empty step list read as "all there".
std::string no_gpu_lines(const Target& t) {
    if (t.gpu_visible) return {};
    const std::string machine = t.virtualization.empty() ? "machine" : t.virtualization + " virtual machine";
    return fmt::format(
        "No GPU: this {} sees no NVIDIA GPU: there is no GPU to install a driver for, and nothing installed here runs on a GPU.\n"
        "  What it can do: CPU-only builds and runs, or compile CUDA code (nvcc needs no GPU) to run on a GPU machine.\n"
        "  To run CUDA here, pass the GPU through to it (PCI passthrough or vGPU), then plan again.\n",
        machine);
}

}  // namespace

std::string describe_request(const Request& r) {
    std::vector<std::string> parts;
    auto add = [&](std::string s) { parts.push_back(std::move(s)); };
    if (r.framework)
        add(r.framework->name + (r.framework->version.empty() ? r.framework->clause_text() : "==" + r.framework->version.str()));
    if (r.cuda) add("--cuda " + r.cuda->str());
    if (r.need_nvcc) add("--need nvcc");
    if (r.need_cudnn) add("--need cudnn");
    if (r.need_opencv) add("--need opencv");
    if (r.offline) add("--offline");
    if (r.fresh) add("--fresh");
    return parts.empty() ? "a CUDA toolkit" : report::join(parts, " ");
}

static std::string verdict_words(const Recipe& plan, const Request& request, const Prediction& prediction) {
    std::string s = "Recipe for " + describe_request(request) + ": ";
    if (plan.refused) return s + "no working set: " + plan.refused->reason;
    std::vector<std::string> chosen;
    for (const auto& c : plan.chosen) chosen.push_back(c.value);
    if (!chosen.empty()) s += report::join(chosen, ", ") + "; ";
    s += plan.steps.empty() ? std::string("nothing to do")
                            : std::to_string(plan.steps.size()) + (plan.steps.size() == 1 ? " step" : " steps");
    if (prediction.evaluated && !prediction.errors.empty())
        s += "; check would still find " + std::to_string(prediction.errors.size()) + (prediction.errors.size() == 1 ? " error" : " errors");
    return s;
}

std::string verdict_line(const Recipe& plan, const Request& request, const Prediction& prediction) {
    // Names, versions and messages from the machine or a log: the one escape for the terminal.
    return report::outside_text(verdict_words(plan, request, prediction), report::Medium::terminal);
}

namespace {

/// A script's comment line: one line, whatever the text from outside holds (a line break in a
/// GPU name or an os-release value would otherwise start a command).
std::string comment_text(std::string_view text) { return report::outside_text(text, report::Medium::terminal); }

void write_text(const Recipe& plan, const Request& request, const Prediction& prediction, std::ostream& out) {
    out << "Recipe for " << describe_request(request) << "\n";
    // The GPU name and OS come from the machine (its os-release may hold anything).
    out << "  machine: " << target_line(plan.target) << "\n";
    for (const auto& n : plan.target.notes) out << "  (" << n << ")\n";
    if (plan.refused) {
        out << "\nNo working set: " << plan.refused->reason << "\n";
        if (!plan.refused->nearest.empty()) out << "Nearest that works on this GPU: " << plan.refused->nearest << "\n";
        if (!plan.rejected.empty()) {
            out << "\nRejected\n";
            for (const auto& r : plan.rejected) out << fmt::format("  {:<12} {}\n", r.option, r.reason);
        }
        return;
    }
    out << "\nChosen\n";
    for (const auto& c : plan.chosen) out << fmt::format("  {:<10} {:<28} {}\n", c.layer, c.value, c.reason);
    if (!plan.rejected.empty()) {
        out << "\nNot chosen\n";
        for (const auto& r : plan.rejected) out << fmt::format("  {:<12} {}{}\n", r.option, r.hard ? "" : "(works) ", r.reason);
    }
    if (!plan.kept.empty()) {
        out << "\nStays as it is\n";
        for (const auto& k : plan.kept) out << fmt::format("  {:<10} {}: {}\n", k.layer, k.what, k.reason);
    }
    if (!plan.skipped.empty()) {
        out << "\nNot needed\n";
        for (const auto& k : plan.skipped) out << fmt::format("  {:<10} {}: {}\n", k.layer, k.what, k.reason);
    }
    for (const auto& w : plan.warnings) out << "\nwarning: " << w << "\n";
    const std::string no_gpu = no_gpu_lines(plan.target);
    if (!no_gpu.empty()) out << "\n" << no_gpu;
    out << "\nSteps\n";
    if (plan.steps.empty())
        out << (no_gpu.empty() ? "  nothing to do: this machine already has the set\n"
                               : "  nothing to install: the rest of the set is here, and there is no GPU for a driver\n");
    int n = 0;
    for (const auto& s : plan.steps) {
        out << fmt::format("\n{}. {}\n", ++n, s.title);
        for (const auto& note : s.notes) out << "   " << note << "\n";
        for (const auto& c : s.commands) out << "     " << (c.starts_with("#") ? c : "$ " + c) << "\n";
        if (s.reboot) out << "   — reboot point: continue with the check after the machine is back —\n";
        if (!s.checks.empty()) {
            out << "   check before going on:\n";
            for (const auto& c : s.checks) out << "     $ " << c << "\n";
        }
    }
    if (prediction.evaluated) {
        if (prediction.errors.empty()) out << "\n`cudoctor check` on the machine as the plan leaves it: no errors.\n";
        else {
            out << "\n`cudoctor check` on the machine as the plan leaves it still finds:\n";
            for (const auto& e : prediction.errors) out << "  error: " << e << "\n";
        }
    }
    out << "\nNothing was run. `cudoctor plan … --format script > plan.sh` writes these steps as a script.\n";
}

}  // namespace

void render_text(const Recipe& plan, const Request& request, const Prediction& prediction, std::ostream& out) {
    // The machine's GPU name, OS and paths run through the whole view, and its own words hold no
    // control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_text(plan, request, prediction, text);
    out << report::outside_lines(text.str());
}

nlohmann::json to_json(const Recipe& plan, const Request& request, const Prediction& prediction) {
    using nlohmann::json;
    const auto& t = plan.target;
    json j;
    j["request"] = describe_request(request);
    j["target"] = {{"gpu", t.gpu_name},
                   {"compute_capability", t.compute_capability},
                   {"architecture", t.architecture},
                   {"os_id", t.distro.id},
                   {"os_version", t.distro.version},
                   {"wsl", t.distro.wsl},
                   {"virtualization", t.virtualization},
                   {"gpu_visible", t.gpu_visible},
                   {"driver", t.driver ? json(t.driver->str()) : json(nullptr)},
                   {"gcc_default", t.gcc_default ? json(*t.gcc_default) : json(nullptr)},
                   {"notes", t.notes}};
    if (plan.refused) {
        j["refused"] = {{"reason", plan.refused->reason}, {"nearest", plan.refused->nearest}};
    } else {
        j["refused"] = nullptr;
    }
    auto opt = [](const auto& v) { return v ? json(v->str()) : json(nullptr); };
    j["versions"] = {{"framework", plan.framework},
                     {"framework_version", plan.framework_version},
                     {"framework_variant", plan.framework_variant},
                     {"cuda", opt(plan.cuda)},
                     {"toolkit", opt(plan.toolkit_release)},
                     {"toolkit_path", plan.toolkit_path},
                     {"min_driver", opt(plan.min_driver)},
                     {"driver_branch", plan.driver_branch ? json(*plan.driver_branch) : json(nullptr)},
                     {"gcc", plan.gcc ? json(*plan.gcc) : json(nullptr)},
                     {"cudnn", opt(plan.cudnn)},
                     {"cudnn_system", plan.cudnn_system}};
    j["chosen"] = json::array();
    for (const auto& c : plan.chosen) j["chosen"].push_back({{"layer", c.layer}, {"value", c.value}, {"reason", c.reason}});
    j["rejected"] = json::array();
    for (const auto& r : plan.rejected) j["rejected"].push_back({{"option", r.option}, {"reason", r.reason}, {"hard", r.hard}});
    j["kept"] = json::array();
    for (const auto& k : plan.kept) j["kept"].push_back({{"layer", k.layer}, {"what", k.what}, {"reason", k.reason}});
    j["skipped"] = json::array();
    for (const auto& k : plan.skipped) j["skipped"].push_back({{"layer", k.layer}, {"what", k.what}, {"reason", k.reason}});
    j["warnings"] = plan.warnings;
    j["steps"] = json::array();
    for (const auto& s : plan.steps)
        j["steps"].push_back(
            {{"layer", s.layer}, {"title", s.title}, {"notes", s.notes}, {"commands", s.commands}, {"checks", s.checks}, {"reboot", s.reboot}});
    if (prediction.evaluated) j["check_after_plan"] = {{"errors", prediction.errors}};
    return j;
}

void render_script(const Recipe& plan, const Request& request, std::ostream& out) {
    out << "#!/usr/bin/env bash\n";
    out << "# Written by `cudoctor plan` for: " << comment_text(describe_request(request)) << "\n";
    out << "# Machine: " << comment_text(target_line(plan.target)) << "\n";
    out << "# Read it before running it. It stops at the first failing command or check.\n";
    out << "set -euo pipefail\n";
    if (plan.refused) {
        out << "echo " << single_quoted("cudoctor plan: no working set: " + plan.refused->reason) << " >&2\n";
        if (!plan.refused->nearest.empty()) out << "echo " << single_quoted("nearest that works: " + plan.refused->nearest) << " >&2\n";
        out << "exit 1\n";
        return;
    }
    for (const auto& c : plan.chosen) out << "# " << comment_text(c.layer + ": " + c.value + " — " + c.reason) << "\n";
    for (const auto& k : plan.kept) out << "# stays: " << comment_text(k.layer + " " + k.what + " — " + k.reason) << "\n";
    if (const std::string no_gpu = no_gpu_lines(plan.target); !no_gpu.empty()) {
        std::string_view rest = no_gpu;
        while (!rest.empty()) {
            const auto nl = rest.find('\n');
            out << "# " << comment_text(text::trim(rest.substr(0, nl))) << "\n";
            rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        }
    }
    out << "from_step=${1:-1}   # after a reboot: bash plan.sh <next step>\n";
    int n = 0;
    for (const auto& s : plan.steps) {
        ++n;
        out << "\n# ---- step " << n << ": " << comment_text(s.title) << "\n";
        for (const auto& note : s.notes) out << "# " << comment_text(note) << "\n";
        out << "if [ \"$from_step\" -le " << n << " ]; then\n";
        out << "echo " << single_quoted(fmt::format("== step {}: {}", n, s.title)) << "\n";
        for (const auto& c : s.commands) {
            if (s.reboot && c == "sudo reboot") {
                out << "# ==== REBOOT POINT: after the machine is back, continue with: bash plan.sh " << n + 1 << "\n";
                out << "echo " << single_quoted(fmt::format("rebooting; afterwards run: bash plan.sh {}", n + 1)) << "\n";
                out << c << "\nexit 0\n";
                continue;
            }
            out << stopping_command(c, fmt::format("cudoctor plan: step {} failed: {}", n, c));
        }
        out << "fi\n";
        if (!s.checks.empty()) {
            // After a reboot the checks of the step before it open the next run.
            out << "if [ \"$from_step\" -le " << (s.reboot ? n + 1 : n) << " ]; then\n";
            out << "# check step " << n << " before going on\n";
            for (const auto& c : s.checks)
                out << stopping_check(c, fmt::format("cudoctor plan: step {}'s check failed, stopping before step {}: {}", n, n + 1, c));
            out << "fi\n";
        }
    }
    out << "\necho 'cudoctor plan: every step done'\n";
}

}  // namespace cudoctor::recipe
