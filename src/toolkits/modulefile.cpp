#include "toolkits/modulefile.hpp"

#include <map>

#include "common/version.hpp"

namespace cudoctor::toolkits {
namespace {

/// A string literal for Tcl (braces would not allow a lone brace) and for Lua: both accept a
/// double-quoted string with \\ \" \$ \[ escaped.
std::string tcl_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\\' || c == '"' || c == '$' || c == '[' || c == ']') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string lua_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

}  // namespace

std::vector<std::string> module_versions(const std::vector<const Entry*>& entries) {
    std::map<std::string, int> count;
    std::vector<std::string> short_names;
    for (const auto* e : entries) {
        auto v = Version::parse(e->toolkit.version);
        short_names.push_back(v ? v->truncated(2).str() : e->toolkit.version);
        ++count[short_names.back()];
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (count[short_names[i]] == 1) out.push_back(short_names[i]);
        else
            out.push_back(entries[i]->toolkit.version + (entries[i]->toolkit.install_method == snapshot::InstallMethod::runfile ||
                                                                 entries[i]->toolkit.install_method == snapshot::InstallMethod::deb
                                                             ? ""
                                                             : "-" + std::string(snapshot::to_string(entries[i]->toolkit.install_method))));
    }
    return out;
}

ModuleFile make_modulefile(const Entry& e, const std::string& module_version, ModuleFlavour flavour) {
    const auto& tk = e.toolkit;
    const std::string bin = tk.has_nvcc ? host::dirname(tk.nvcc_path) : "";
    std::string lib = tk.lib_dir;
    const std::string title = "CUDA Toolkit " + (e.release.empty() ? tk.version : e.release) + " (" + tk.path + ")";
    ModuleFile m;
    m.name = "cuda/" + module_version;
    // Not clang-formatted: the modulefile text, one of its lines per source line.
    // clang-format off
    if (flavour == ModuleFlavour::tcl) {
        m.relpath = m.name;
        m.content = "#%Module1.0\n"
                    "## " + title + ", written by cudoctor modulefile\n"
                    "module-whatis " + tcl_quoted(title) + "\n"
                    "proc ModulesHelp { } { puts stderr " + tcl_quoted(title + ": nvcc, CUDA_HOME and its libraries") + " }\n"
                    "# One CUDA at a time: two toolkits' libcudart on one LD_LIBRARY_PATH fight.\n"
                    "conflict cuda\n"
                    "setenv CUDA_HOME " + tcl_quoted(tk.path) + "\n"
                    "setenv CUDA_PATH " + tcl_quoted(tk.path) + "\n";
        if (!bin.empty()) m.content += "prepend-path PATH " + tcl_quoted(bin) + "\n";
        if (!lib.empty()) m.content += "prepend-path LD_LIBRARY_PATH " + tcl_quoted(lib) + "\n";
        return m;
    }
    m.relpath = m.name + ".lua";
    m.content = "-- " + title + ", written by cudoctor modulefile\n"
                "whatis(" + lua_quoted(title) + ")\n"
                "help(" + lua_quoted(title + ": nvcc, CUDA_HOME and its libraries") + ")\n"
                "-- One CUDA at a time: Lmod swaps or refuses a second module of the family.\n"
                "family(\"cuda\")\n"
                "setenv(\"CUDA_HOME\", " + lua_quoted(tk.path) + ")\n"
                "setenv(\"CUDA_PATH\", " + lua_quoted(tk.path) + ")\n";
    // clang-format on
    if (!bin.empty()) m.content += "prepend_path(\"PATH\", " + lua_quoted(bin) + ")\n";
    if (!lib.empty()) m.content += "prepend_path(\"LD_LIBRARY_PATH\", " + lua_quoted(lib) + ")\n";
    return m;
}

}  // namespace cudoctor::toolkits
