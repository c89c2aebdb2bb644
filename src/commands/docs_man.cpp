// cudoctor(1): the man page, written in roff from the CLI11 tree (describe_cli) plus the few
// sections no option knows: exit status, environment, files.
#include <array>
#include <cctype>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "commands/docs.hpp"
#include "common/text.hpp"

namespace cudoctor::commands {
namespace {

struct EnvDoc {
    std::string_view name;
    std::string_view help;
};

// Every CUDOCTOR_* variable read in src/ must be here: tests/unit/docs_man_test.cpp greps for them.
constexpr std::array<EnvDoc, 15> k_environment = {{
    {"NO_COLOR", "When set and not empty, no output is coloured (https://no-color.org), unless --color=always."},
    {"CLICOLOR_FORCE",
     "When set and neither empty nor 0, output is coloured even when it is not a terminal (unless NO_COLOR is set or --color=never)."},
    {"TERM", "TERM=dumb turns colour off in --color=auto."},
    {"CUDOCTOR_OVERRIDE_DRIVER_VERSION",
     "Pretend the NVIDIA driver has this version (550.54.14). Read from the probed machine's environment; the report says the override is active."},
    {"CUDOCTOR_OVERRIDE_CUDA", "Pretend the driver supports CUDA up to this version (12.4), as conda's CONDA_OVERRIDE_CUDA does."},
    {"CUDOCTOR_OVERRIDE_TIME", "The time the snapshot is taken at, as a UTC time like 2024-06-12T06:41:26Z (for reproducible snapshots)."},
    {"CUDOCTOR_OVERRIDE_FS_TYPE", "verify-installer: pretend the installer sits on this filesystem type (vfat, exfat, ntfs, ext4)."},
    {"CUDOCTOR_DRIVER_LIBRARY_PATH",
     "verify, watch: folders on this computer (':'-separated, never inside a --root image) searched first for libcuda.so.1, "
     "libnvidia-ml.so.1 and libcudnn; the report says when it is active. Under --root it is the only way anything is loaded."},
    {"CUDOCTOR_OVERRIDE_WATCH_STEP",
     "watch: stamp samples this far apart on a simulated clock (a replay of a recorded series, faster than real time); --duration counts on that clock."},
    {"CUDOCTOR_KB",
     "A folder of knowledge-base tables (data/*.tsv), looked up table by table after --kb DIR and before /etc/cudoctor/kb and the "
     "built-in copy; --version names where each table came from. Read from this computer, never from a --root image."},
    {"CUDOCTOR_LOG_ENGINE",
     "explain: which engine scans the text. Unset (or anything else): the log's size chooses, RE2 for up to 8 MiB, Vectorscan past "
     "that (one pass for the whole catalog, ripgrep's speed; its 0.1 s compile is not worth it for less). 'vectorscan' or 're2' "
     "asks for one whatever the size. Both find the same matches."},
    {"CUDOCTOR_PLAN_FAIL_AT", "Test seam: step N (1-based) of an applied plan fails instead of running, to exercise the rollback."},
    {"PATH, LD_LIBRARY_PATH",
     "Which nvcc and which libraries win, as every CUDA program finds them; read from the probed process environment."},
    {"CUDA_HOME, CUDA_PATH", "The toolkit that build systems (PyTorch extensions, CMake) will use."},
    {"CONDA_PREFIX, VIRTUAL_ENV", "The active conda environment or virtualenv, whose packages bring their own CUDA libraries."},
}};

struct ExitDoc {
    int code;
    std::string_view help;
};

constexpr std::array<ExitDoc, 5> k_exit = {{
    {0, "Healthy: nothing wrong (or the command did what it was asked)."},
    {1, "Problems found: findings at or above the --fail-on severity, a GPU that cannot run a binary, an installer that is not whole."},
    {2,
     "Usage error or unusable input: bad arguments, a missing --root, a broken snapshot or table. Nothing was changed. The reason "
     "is one line \"cudoctor COMMAND: ...\" on standard error, or with --json one object {\"error\": {\"code\", \"message\"}} "
     "on standard output."},
    {3, "Internal error: a bug in cudoctor. Please report it with the command line."},
    {130, "Interrupted (Ctrl-C)."},
}};

constexpr std::array<EnvDoc, 9> k_files = {{
    {"/usr/local/cuda, /usr/local/cuda-*", "The default toolkit link and the installed toolkits."},
    {"/proc/driver/nvidia/version", "The loaded kernel module's version."},
    {"/etc/ld.so.conf.d/, /etc/ld.so.cache", "Where the dynamic loader finds libcudart, libcudnn and the driver libraries."},
    {"/var/lib/dpkg/status, /var/lib/dpkg/info/", "Which packages installed the driver and the toolkits."},
    {"/etc/os-release", "The distribution, for package names and supported compilers."},
    {"/usr/share/man/man1/cudoctor.1.gz", "This page."},
    {"/usr/share/bash-completion/completions/cudoctor", "Bash completion (loaded by the bash-completion package)."},
    {"/usr/share/zsh/vendor-completions/_cudoctor", "Zsh completion."},
    {"/usr/share/fish/vendor_completions.d/cudoctor.fish", "Fish completion."},
}};

/// Text for a roff text line: backslashes escaped, non-ASCII as \[uXXXX], a leading . or '
/// neutralised. `literal` also escapes '-' (command lines, option names: copy-pasteable).
std::string roff(std::string_view s, bool literal = false) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\\') out += "\\e";
        else if (c == '-' && literal) out += "\\-";
        else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
        else if (c < 0x80) out += static_cast<char>(c);
        else {
            // UTF-8 → code point; a broken sequence becomes U+FFFD and resynchronises at the next byte.
            const std::size_t extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
            std::uint32_t cp = extra == 3 ? c & 0x07u : extra == 2 ? c & 0x0Fu : c & 0x1Fu;
            bool ok = extra > 0 && i + extra < s.size();
            for (std::size_t k = 1; ok && k <= extra; ++k) {
                const auto cc = static_cast<unsigned char>(s[i + k]);
                ok = (cc & 0xC0u) == 0x80u;
                cp = (cp << 6) | (cc & 0x3Fu);
            }
            if (ok) i += extra;
            else cp = 0xFFFD;
            out += fmt::format("\\[u{:04X}]", cp);
        }
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

/// "cudoctor — a doctor for…" → "a doctor for…".
std::string without_name(const std::string& description, const std::string& name) {
    for (std::string_view dash : {" — ", " - ", ": "})
        if (description.starts_with(name + std::string(dash))) return description.substr(name.size() + dash.size());
    return description;
}

/// "\fB\-v\fR, \fB\-\-verbose\fR \fITEXT\fR" for a .TP tag.
std::string option_tag(const OptionDoc& o) {
    std::string tag;
    for (const auto& n : o.names) tag += (tag.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff(n, true));
    if (o.names.empty()) tag = fmt::format("\\fI{}\\fR", roff(o.value_name));
    else if (!o.value_name.empty()) {
        std::string value = o.choices.empty() ? o.value_name : text::to_lower(o.value_name);
        if (!o.choices.empty()) {
            value.clear();
            for (const auto& c : o.choices) value += (value.empty() ? "" : "|") + c;
        }
        tag += fmt::format(" \\fI{}\\fR", roff(value, true));
    }
    if (o.repeatable) tag += " ...";
    return tag;
}

std::string option_help(const OptionDoc& o) {
    std::string help = roff(o.help);
    if (o.required) help += " (required)";
    if (!o.default_value.empty()) help += fmt::format(" (default: {})", roff(o.default_value, true));
    if (o.repeatable && !o.names.empty()) help += " Repeatable.";
    return help;
}

std::string synopsis_of(const std::string& program, const CommandDoc& c) {
    std::string s = fmt::format(".B \"{}{}\"\n", program.ends_with(' ') ? program : program + " ", roff(c.name, true));
    if (!c.options.empty()) s += "[\\fIOPTIONS\\fR]\n";
    for (const auto& p : c.positionals)
        s += fmt::format("{}\\fI{}\\fR{}{}\n", p.required ? "" : "[", roff(p.value_name), p.repeatable ? " ..." : "", p.required ? "" : "]");
    return s;
}

/// One .SS per command: synopsis, help, positionals, options. `parent` is "opencv " for `opencv cmake`.
void command_section(std::string& out, const std::string& program, const std::string& parent, const CommandDoc& c) {
    out += fmt::format(".SS \"{}\"\n", roff(parent + c.name, true));
    out += synopsis_of(program + " " + roff(parent, true), c);
    out += ".PP\n" + roff(c.help) + ".\n";
    if (!c.children.empty()) {
        out += ".PP\nIts commands:";
        for (std::size_t i = 0; i < c.children.size(); ++i)
            out += fmt::format("{}\\fB{}\\fR", i ? ", " : " ", roff(c.children[i].name, true));
        out += ".\n";
    }
    for (const auto& o : c.positionals) out += ".TP\n" + option_tag(o) + "\n" + option_help(o) + "\n";
    for (const auto& o : c.options) out += ".TP\n" + option_tag(o) + "\n" + option_help(o) + "\n";
}

void footer_block(std::string& out, const std::string& footer) {
    out += ".PP\n.RS 4\n.nf\n";
    for (auto line : text::lines(footer)) {
        if (text::trim(line) == "Examples:" || text::trim(line) == "Example:") continue;
        out += roff(line, true) + "\n";
    }
    out += ".fi\n.RE\n";
}

}  // namespace

std::vector<std::string> documented_environment() {
    std::vector<std::string> names;
    for (const auto& e : k_environment)
        for (auto n : text::split(e.name, ',')) names.emplace_back(text::trim(n));
    return names;
}

std::string man_page(const CliDoc& doc, const std::string& version, const std::string& date) {
    const std::string& p = doc.name;
    std::string out = fmt::format(".\\\" Generated by `{} __generate man` from the same CLI tree as --help. Do not edit.\n", p);
    out += fmt::format(".TH {} 1 \"{}\" \"{} {}\" \"User Commands\"\n", upper(roff(p)), roff(date), roff(p), roff(version));
    out += ".SH NAME\n" + roff(p) + " \\- " + roff(without_name(doc.description, p)) + "\n";
    out += ".SH SYNOPSIS\n";
    out += fmt::format(
        ".B {}\n[\\fB\\-\\-color\\fR=\\fIauto\\fR|\\fIalways\\fR|\\fInever\\fR] [\\fB\\-q\\fR] "
        "[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n.br\n.B {} \\-\\-version\n",
        p, p);
    out += ".SH DESCRIPTION\n";
    out += fmt::format(
        ".B {}\ninspects the NVIDIA CUDA stack of this machine (or of a machine image given with "
        "\\fB\\-\\-root\\fR): GPU, driver, toolkits, cuDNN, Python frameworks and the environment "
        "that decides which of them a program gets, and says what is wrong and how to fix it. "
        "Without a command it runs \\fBcheck\\fR.\n",
        p);
    out +=
        ".PP\nNothing on the machine is changed unless a command is given \\fB\\-\\-apply\\fR: a change is first "
        "printed as a plan of exact steps.\n";

    out += ".SH GLOBAL OPTIONS\nThese may be given before or after the command.\n";
    for (const auto& o : doc.global_options) out += ".TP\n" + option_tag(o) + "\n" + option_help(o) + "\n";

    out += ".SH COMMANDS\n";
    for (const auto& c : doc.commands) {
        command_section(out, p, "", c);
        for (const auto& child : c.children) command_section(out, p, c.name + " ", child);
    }

    out += ".SH EXAMPLES\n";
    for (const auto& c : doc.commands) {
        if (c.footer.empty()) continue;
        out += fmt::format(".SS \"{}\"\n", roff(c.name, true));
        footer_block(out, c.footer);
    }

    out += ".SH EXIT STATUS\n";
    for (const auto& e : k_exit) out += fmt::format(".TP\n.B {}\n{}\n", e.code, roff(e.help, false));
    out += ".SH ENVIRONMENT\n";
    for (const auto& e : k_environment) out += fmt::format(".TP\n.B {}\n{}\n", roff(e.name), roff(e.help));
    out += ".SH FILES\n";
    for (const auto& f : k_files) out += fmt::format(".TP\n.I {}\n{}\n", roff(f.name, true), roff(f.help));
    out += ".SH SEE ALSO\n.BR nvidia\\-smi (1),\n.BR nvcc (1),\n.BR ldconfig (8),\n.BR dpkg (1),\n.BR module (1)\n";
    return out;
}

}  // namespace cudoctor::commands
