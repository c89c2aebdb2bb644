#include "toolkits/modulefile.hpp"

#include <algorithm>
#include <map>
#include <string_view>

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

/// A folder gcc, ld.so or the shell searches without being told: naming it changes the order of
/// the system's own folders and nothing else.
bool searched_anyway(std::string_view dir) {
    for (std::string_view d : {"/", "/usr", "/usr/local", "/bin", "/usr/bin", "/usr/local/bin", "/include", "/usr/include",
                               "/usr/local/include", "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"})
        if (dir == d) return true;
    // Debian's multiarch folders: /usr/lib/x86_64-linux-gnu, /lib/aarch64-linux-gnu, /usr/local/lib/…
    for (std::string_view base : {"/lib/", "/usr/lib/", "/usr/local/lib/"})
        if (dir.starts_with(base) && dir.ends_with("-linux-gnu") && dir.find('/', base.size()) == std::string_view::npos) return true;
    return false;
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

ModuleFolders module_folders(const host::Host& host, const Entry& e) {
    const auto& tk = e.toolkit;
    ModuleFolders f;
    const auto keep = [&](const std::string& dir) { return !dir.empty() && !searched_anyway(dir) && host.is_dir(dir); };
    const auto add = [&](std::vector<std::string>& list, const std::string& dir) {
        if (keep(dir) && std::find(list.begin(), list.end(), dir) == list.end()) list.push_back(dir);
    };
    if (tk.has_nvcc && keep(host::dirname(tk.nvcc_path))) f.bin = host::dirname(tk.nvcc_path);
    for (const char* sub : {"include", "extras/CUPTI/include", "nvvm/include"}) add(f.include, host::join(tk.path, sub));
    add(f.libraries, tk.lib_dir);
    for (const char* sub : {"extras/CUPTI/lib64", "nvvm/lib64"}) add(f.libraries, host::join(tk.path, sub));
    // The stubs beside libcudart (runfile: targets/x86_64-linux/lib/stubs, which lib64/stubs names).
    for (const auto& dir : {tk.lib_dir.empty() ? std::string() : host::join(tk.lib_dir, "stubs"), host::join(tk.path, "lib64/stubs")})
        if (f.stubs.empty() && keep(dir)) f.stubs = dir;
    if (keep(tk.path)) f.cmake_prefix = tk.path;
    return f;
}

ModuleFile make_modulefile(const Entry& e, const ModuleFolders& f, const std::string& module_version, ModuleFlavour flavour) {
    const auto& tk = e.toolkit;
    const std::string version = e.release.empty() ? tk.version : e.release;
    const std::string title = "CUDA Toolkit " + version + " (" + tk.path + ")";
    const std::string description = "CUDA Toolkit " + version + " in " + tk.path + ": nvcc, headers and libraries";
    // What the module sets, in the order it sets it, for the help text.
    std::vector<std::string> names{"CUDA_HOME", "CUDA_PATH"};
    if (!f.bin.empty()) names.emplace_back("PATH");
    if (!f.include.empty()) names.emplace_back("CPATH");
    if (!f.libraries.empty() || !f.stubs.empty()) names.emplace_back("LIBRARY_PATH");
    if (!f.libraries.empty()) names.emplace_back("LD_LIBRARY_PATH");
    if (!f.cmake_prefix.empty()) names.emplace_back("CMAKE_PREFIX_PATH");
    std::string sets;
    for (const auto& n : names) sets += (sets.empty() ? "" : ", ") + n;
    std::vector<std::string> help{title + ", written by cudoctor modulefile.", "Sets " + sets + "."};
    if (!f.include.empty() && !f.libraries.empty())
        help.emplace_back("gcc and g++ find cuda_runtime.h and -lcudart without -I or -L; CMake finds CUDAToolkit.");
    if (!f.stubs.empty()) help.emplace_back(f.stubs + " is on LIBRARY_PATH only: it links libcuda without a driver, never loads it.");

    ModuleFile m;
    m.name = "cuda/" + module_version;
    const bool tcl = flavour == ModuleFlavour::tcl;
    m.relpath = tcl ? m.name : m.name + ".lua";
    const auto quoted = [&](const std::string& s) { return tcl ? tcl_quoted(s) : lua_quoted(s); };
    const auto set_var = [&](const std::string& var, const std::string& value) {
        m.content += tcl ? "setenv " + var + " " + quoted(value) + "\n" : "setenv(\"" + var + "\", " + quoted(value) + ")\n";
    };
    const auto add_path = [&](const char* how, const std::string& var, const std::string& dir) {
        if (dir.empty()) return;
        const std::string verb = std::string(how) + "-path";
        m.content += tcl ? verb + " " + var + " " + quoted(dir) + "\n" : std::string(how) + "_path(\"" + var + "\", " + quoted(dir) + ")\n";
    };
    // Not clang-formatted: the modulefile text, one of its lines per source line.
    // clang-format off
    if (tcl) {
        m.content = "#%Module1.0\n"
                    "## " + title + ", written by cudoctor modulefile\n"
                    "module-whatis " + quoted("Name: cuda") + "\n"
                    "module-whatis " + quoted("Version: " + version) + "\n"
                    "module-whatis " + quoted("Description: " + description) + "\n"
                    "proc ModulesHelp { } {\n";
        for (const auto& line : help) m.content += "    puts stderr " + quoted(line) + "\n";
        m.content += "}\n"
                     "# One CUDA at a time: two toolkits' libcudart on one LD_LIBRARY_PATH fight. EasyBuild\n"
                     "# names its module CUDA, and module names are case-sensitive.\n"
                     "conflict cuda\n"
                     "conflict CUDA\n";
    } else {
        m.content = "-- " + title + ", written by cudoctor modulefile\n"
                    "whatis(" + quoted("Name: cuda") + ")\n"
                    "whatis(" + quoted("Version: " + version) + ")\n"
                    "whatis(" + quoted("Description: " + description) + ")\n";
        std::string text;
        for (const auto& line : help) text += line + "\n";
        m.content += "help(" + quoted(text) + ")\n"
                     "-- One CUDA at a time: Lmod swaps or refuses a second module of the family. EasyBuild\n"
                     "-- names its module CUDA, and module names are case-sensitive.\n"
                     "family(\"cuda\")\n"
                     "conflict(\"CUDA\")\n";
    }
    // clang-format on
    set_var("CUDA_HOME", tk.path);
    set_var("CUDA_PATH", tk.path);
    add_path("prepend", "PATH", f.bin);
    for (const auto& dir : f.include) add_path("prepend", "CPATH", dir);
    for (const auto& dir : f.libraries) add_path("prepend", "LIBRARY_PATH", dir);
    add_path("append", "LIBRARY_PATH", f.stubs);
    for (const auto& dir : f.libraries) add_path("prepend", "LD_LIBRARY_PATH", dir);
    add_path("prepend", "CMAKE_PREFIX_PATH", f.cmake_prefix);
    return m;
}

}  // namespace cudoctor::toolkits
