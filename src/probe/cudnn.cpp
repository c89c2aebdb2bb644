// cuDNN probe: every copy — inside a toolkit, in the system library folders (a .deb), in a pip
// wheel, in a conda environment, or anywhere else the loader cache knows — with its version
// (header and library names), the CUDA major it is built for, and whether the loader finds it.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

#include <re2/re2.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "common/worker.hpp"
#include "formats/c_header.hpp"
#include "formats/conda_meta.hpp"
#include "formats/elf.hpp"
#include "host/mapped_file.hpp"
#include "probe/context.hpp"
#include "probe/cuda_libs.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kCudnnProbe = "cudnn";
// The CUDA libraries whose major says which CUDA a cuDNN build is for: cuDNN 8's sub-libraries
// link them (DT_NEEDED), cuDNN 9 opens them itself and keeps their names as text.
const std::vector<std::string_view> kCudaLibraryStems = {"libcublasLt", "libcublas", "libnvrtc", "libcudart"};
// cuDNN 9's libraries that may name the CUDA libraries they open (in .rodata), in the order
// they are read: the precompiled engines first (9.13 names libcublasLt.so.13 and
// libnvrtc.so.13 there, and nowhere else), the other two only when no engines library names one.
constexpr std::string_view kCudnn9Engines = "libcudnn_engines_precompiled.so";
constexpr std::array<std::string_view, 2> kCudnn9OtherOpeners = {"libcudnn_engines_runtime_compiled.so", "libcudnn_graph.so"};
// A .rodata larger than this is not read (9.19.0's largest is 3.7 MB).
constexpr std::uint64_t kMaxRodata = 64u << 20;

struct Copy {
    std::string lib_dir;               // canonical; may be ""
    std::vector<std::string> headers;  // candidate cudnn_version headers, first found wins
    std::string location;
    std::string cuda_major;
    std::string version_hint;  // dist-info or package metadata
    std::string evidence_hint;
};

/// Versions of the libcudnn.so.* files in `dir` ("9.1.0", "9"), most precise first.
std::vector<std::string> library_versions(Context& ctx, const std::string& dir) {
    std::vector<std::string> out;
    // glob over the run's one listing, not a copy of a thousand names per call.
    for (const auto& path : ctx.host.glob(dir, "libcudnn.so.*")) {
        const std::string n = host::basename(path);
        auto v = std::string(so_version(n));
        if (Version::parse(v) && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return std::count(a.begin(), a.end(), '.') > std::count(b.begin(), b.end(), '.'); });
    return out;
}

/// The CUDA major of "libcublas.so.11" when it is one of kCudaLibraryStems, else nullopt.
std::optional<int> cuda_library_major(std::string_view name) {
    for (const auto stem : kCudaLibraryStems)
        if (name.starts_with(std::string(stem) + ".so."))
            if (auto v = Version::parse(name.substr(stem.size() + 4))) return v->major();
    return std::nullopt;
}

/// The CUDA library names in a cuDNN 9 library's .rodata (megabytes of it), read with pread(2)
/// piece by piece into one small buffer: from the page cache as cat reads, without mapping and
/// faulting in each page (on the 2-core VM of #25, 1.3 ms for the 8.5 MB of cuDNN 9.13's three
/// libraries against 1.9 ms mapped with MADV_POPULATE_READ). A large one is read in two halves,
/// the second on ctx.worker's core (cuDNN 9.13's 3.7 MB: 0.9 ms in one). Where the descriptor
/// cannot read, the mapping is scanned as a whole, with the same names.
std::vector<std::string> cuda_library_names_in(Context& ctx, const host::MappedFile& file, const formats::ElfSection& section,
                                               std::string_view mapped) {
    constexpr std::size_t kPiece = 64u << 10;        // below malloc's mmap threshold: the heap keeps it
    constexpr std::uint64_t kHalvesFrom = 1u << 20;  // a thread's hand-over costs more than a smaller scan
    if (file.readable()) {
        auto read = [&](std::uint64_t offset, std::uint64_t length, char* to) { return file.read_at(section.offset + offset, length, to); };
        const std::uint64_t size = mapped.size();
        auto part = [&](std::uint64_t from, std::uint64_t to) {
            return formats::library_names_read_part(size, from, to, kPiece, read, kCudaLibraryStems);
        };
        const std::uint64_t half = ctx.worker && size >= kHalvesFrom ? size / 2 : size;
        // `second` is waited for before `read` and `file` go: get(), or its destructor.
        auto second = ctx.worker && half < size ? ctx.worker->post([&] { return part(half, size); }) : Pending<decltype(part(0, 0))>();
        auto found = part(0, half);
        if (second.valid()) {
            auto rest = second.get();
            if (found && rest) found->insert(found->end(), std::make_move_iterator(rest->begin()), std::make_move_iterator(rest->end()));
            else found.reset();
        }
        if (found) return formats::merge_library_names(std::move(*found));
    }
    return formats::library_names_in(mapped, kCudaLibraryStems);
}

/// What cuDNN's own libraries in `dir` say about the CUDA major they are built for: the CUDA
/// libraries cuDNN 8's sub-libraries link (DT_NEEDED), else the names cuDNN 9's precompiled
/// engines open (text in .rodata), else those its runtime-compiled engines and graph library
/// open. The first of these that names any decides: on cuDNN 9.13 only the precompiled engines
/// name one, and reading the other two (4.8 of its 8.5 MB of .rodata) was half of check's
/// cuDNN probe. Files are mapped and read, never loaded. Nothing when no library names one, or
/// when the libraries read name two majors (a mixed folder, such as two engines releases built
/// for different CUDA: say nothing).
struct BuiltFor {
    std::string cuda_major;
    snapshot::Evidence evidence;
};
std::optional<BuiltFor> cuda_major_from_libraries(Context& ctx, const std::string& dir) {
    auto names = ctx.host.list_dir(dir);
    if (!names) return std::nullopt;
    std::vector<std::string> files;  // regular files only: the links name the same bytes
    for (const auto& n : *names) {
        if (!n.starts_with("libcudnn") || n.find(".so") == std::string::npos) continue;
        auto info = ctx.host.lstat(host::join(dir, n));
        if (info && info->type == host::FileType::regular) files.push_back(n);
    }
    std::vector<std::pair<int, snapshot::Evidence>> found;
    auto record = [&](int major, const std::string& file, const std::string& how) {
        found.emplace_back(major, snapshot::Evidence{host::join(dir, file), how});
    };
    // Pass 0: every library's DT_NEEDED; 1: the precompiled engines' .rodata; 2: the others'.
    for (int pass = 0; pass < 3 && found.empty(); ++pass) {
        for (const auto& n : files) {
            if (pass == 1 && !n.starts_with(kCudnn9Engines)) continue;
            if (pass == 2 && std::none_of(kCudnn9OtherOpeners.begin(), kCudnn9OtherOpeners.end(), [&](auto o) { return n.starts_with(o); }))
                continue;
            // The descriptor stays open for .rodata's pieces (one file at a time, closed at once).
            auto file = host::MappedFile::open(ctx.host, host::join(dir, n), pass > 0 ? 0 : UINT64_MAX);
            if (!file) continue;
            auto elf = formats::parse_elf(file->bytes());
            if (!elf) continue;  // a text stand-in or a broken copy: no fact
            if (pass == 0) {
                auto needed = formats::needed_libraries(file->bytes(), *elf);
                if (!needed) {
                    ctx.note(kCudnnProbe, host::join(dir, n), needed.error().message);
                    continue;
                }
                for (const auto& lib : *needed)
                    if (auto m = cuda_library_major(lib)) record(*m, n, "links " + lib + " (DT_NEEDED)");
            } else {
                const auto* rodata = formats::find_section(*elf, ".rodata");
                if (!rodata || rodata->size > kMaxRodata) continue;
                auto bytes = formats::section_bytes(file->bytes(), *rodata);
                if (!bytes) continue;
                for (const auto& lib : cuda_library_names_in(ctx, *file, *rodata, *bytes))
                    if (auto m = cuda_library_major(lib)) record(*m, n, "opens " + lib);
            }
        }
    }
    if (found.empty()) return std::nullopt;
    for (const auto& f : found)
        if (f.first != found.front().first) {
            ctx.note(kCudnnProbe, dir,
                     "cuDNN libraries here name CUDA " + std::to_string(found.front().first) + " and CUDA " + std::to_string(f.first) +
                         " libraries: a mixed copy");
            return std::nullopt;
        }
    return BuiltFor{std::to_string(found.front().first), found.front().second};
}

/// How many bytes of two same-sized files are compared to call one a copy of the other: enough
/// to tell two builds apart (ELF headers, section tables, build ids sit early), cheap where the
/// files are gigabytes.
constexpr std::size_t kCopyCompareBytes = 64u << 10;

/// "libcudnn_ops.so.9.1.0" → "libcudnn_ops"; "" for a name that is no cuDNN library name.
std::string cudnn_library_stem(std::string_view name) {
    static const RE2 kName(R"((libcudnn[a-z0-9_]*)\.so(?:\.\d+)*)");
    std::string stem;
    if (!RE2::FullMatch(name, kName, &stem)) return {};
    return stem;
}

/// The library chains in `dir` whose short names are copies of the real file instead of links: a
/// tar archive copied without `cp -P`. A name counts as a copy only when it is a regular file of
/// the real file's size with the same first bytes; a chain of links, a single file (a wheel's
/// libcudnn.so.9) or files that differ say nothing.
std::vector<snapshot::CudnnFlattenedChain> flattened_chains(Context& ctx, const std::string& dir) {
    std::vector<snapshot::CudnnFlattenedChain> out;
    // WSL's driver folder holds regular files by design (and no cuDNN): never judged.
    if (dir == "/usr/lib/wsl" || dir.starts_with("/usr/lib/wsl/")) return out;
    auto names = ctx.host.list_dir(dir);
    if (!names) return out;
    std::map<std::string, std::vector<std::string>> chains;
    for (const auto& n : *names)
        if (auto stem = cudnn_library_stem(n); !stem.empty()) chains[stem].push_back(n);
    for (const auto& [stem, group] : chains) {
        // Each release's real file is a name no other name extends (libcudnn.so.9.1.0, not
        // libcudnn.so.9); its chain is the names it extends, most precise first.
        for (const auto& leaf : group) {
            const bool extended = std::any_of(group.begin(), group.end(), [&](const std::string& n) { return n.starts_with(leaf + "."); });
            if (extended) continue;
            std::vector<std::string> chain = {leaf};
            for (const auto& n : group)
                if (leaf.starts_with(n + ".")) chain.push_back(n);
            if (chain.size() < 2) continue;
            std::sort(chain.begin() + 1, chain.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
            const std::string real = host::join(dir, leaf);
            auto real_info = ctx.host.lstat(real);
            if (!real_info || real_info->type != host::FileType::regular || real_info->size == 0) continue;
            std::optional<std::string> real_head;
            snapshot::CudnnFlattenedChain c{leaf, chain, {}, real_info->size};
            for (std::size_t i = 1; i < chain.size(); ++i) {
                const std::string path = host::join(dir, chain[i]);
                auto info = ctx.host.lstat(path);
                if (!info || info->type != host::FileType::regular || info->size != real_info->size) continue;
                if (!real_head) {
                    auto head = ctx.host.read_head(real, kCopyCompareBytes);
                    if (!head) break;
                    real_head = std::move(*head);
                }
                auto head = ctx.host.read_head(path, kCopyCompareBytes);
                if (head && *head == *real_head) c.copies.push_back(chain[i]);
            }
            if (!c.copies.empty()) out.push_back(std::move(c));
        }
    }
    return out;
}

bool loader_visible(Context& ctx, const std::string& lib_dir) {
    for (const auto& e : ctx.snap.environment.loader_cache) {
        if (e.soname.starts_with("libcudnn.so") && host::dirname(e.path) == lib_dir) return true;
        if (e.soname.starts_with("libcudnn.so")) {
            if (auto real = ctx.host.resolve(host::dirname(e.path)); real && *real == lib_dir) return true;
        }
    }
    for (const auto& e : ctx.snap.environment.ld_library_path) {
        if (!e.exists) continue;
        if (auto real = ctx.host.resolve(e.path); real && *real == lib_dir) return true;
    }
    return false;
}

/// "libcudnn9-cuda-12" → 12; "8.9.7.29-1+cuda12.2" → 12.
std::string cuda_major_from_deb(Context& ctx) {
    static const RE2 kName(R"(libcudnn\d+-cuda-(\d+))");
    static const RE2 kVersion(R"(\+cuda(\d+))");
    for (const auto& p : ctx.dpkg) {
        // Both forms name a libcudnn package: the others (a thousand) need no RE2 run.
        if (!p.name.starts_with("libcudnn")) continue;
        std::string major;
        if (RE2::FullMatch(p.name, kName, &major)) return major;
        if (p.name.starts_with("libcudnn") && RE2::PartialMatch(p.version, kVersion, &major)) return major;
    }
    return {};
}

void collect(Context& ctx, std::vector<Copy>& copies) {
    for (const auto& tk : ctx.snap.toolkits) {
        // Wheel trees and conda environments have their own sections below.
        if (!snapshot::is_system_toolkit(tk)) continue;
        for (const char* lib : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
            auto dir = ctx.host.resolve(host::join(tk.path, lib));
            if (!dir || library_versions(ctx, *dir).empty()) continue;
            copies.push_back({*dir,
                              {host::join(tk.path, "include/cudnn_version.h"), host::join(tk.path, "include/cudnn.h")},
                              "toolkit",
                              {},  // the folder says which CUDA it is, not which CUDA the copy is built for
                              {},
                              {}});
        }
    }
    std::string deb_major = cuda_major_from_deb(ctx);
    for (const auto lib : kSystemLibraryFolders) {
        auto dir = ctx.host.resolve(lib);
        if (!dir || library_versions(ctx, *dir).empty()) continue;
        copies.push_back({*dir,
                          {"/usr/include/cudnn_version.h", "/usr/include/x86_64-linux-gnu/cudnn_version_v9.h",
                           "/usr/include/x86_64-linux-gnu/cudnn_version_v8.h", "/usr/include/cudnn.h"},
                          "system",
                          deb_major,
                          {},
                          {}});
    }
    for (const auto& site : ctx.python_sites) {
        const std::string base = host::join(site.dir, "nvidia/cudnn");
        if (!ctx.host.is_dir(base)) continue;
        Copy copy{host::join(base, "lib"), {host::join(base, "include/cudnn_version.h")}, "pip", {}, {}, {}};
        if (auto real = ctx.host.resolve(copy.lib_dir)) copy.lib_dir = *real;
        for (const auto& info : ctx.host.glob(site.dir, "nvidia_cudnn_cu*-*.dist-info")) {
            const std::string name = host::basename(info);  // nvidia_cudnn_cu12-9.1.0.70.dist-info
            const auto dash = name.find('-');
            const auto cu = name.rfind("_cu", dash);
            copy.cuda_major = name.substr(cu + 3, dash - cu - 3);
            copy.version_hint = name.substr(dash + 1, name.size() - dash - 1 - 10);
            copy.evidence_hint = info;
        }
        copies.push_back(std::move(copy));
    }
    static const RE2 kCondaCuda(R"(cuda(\d+))");
    for (const auto& env : ctx.snap.environment.conda_envs) {
        const std::string lib = host::join(env, "lib");
        if (library_versions(ctx, lib).empty()) continue;
        Copy copy{
            *ctx.host.resolve(lib), {host::join(env, "include/cudnn_version.h"), host::join(env, "include/cudnn.h")}, "conda", {}, {}, {}};
        for (const auto& file : ctx.host.glob(host::join(env, "conda-meta"), "cudnn-*.json")) {
            auto pkg = ctx.read_conda_meta(kCudnnProbe, file);
            if (!pkg) continue;
            copy.version_hint = pkg->version;
            copy.evidence_hint = file;
            if (std::string major; RE2::PartialMatch(pkg->build, kCondaCuda, &major)) copy.cuda_major = major;
            for (const auto& dep : pkg->depends) {
                if (!copy.cuda_major.empty()) break;
                if (dep.starts_with("cudatoolkit ") || dep.starts_with("cuda-version ")) {
                    auto spec = dep.substr(dep.find(' ') + 1);
                    spec.erase(0, spec.find_first_of("0123456789"));
                    if (auto v = Version::parse(spec)) copy.cuda_major = std::to_string(v->major());
                }
            }
        }
        copies.push_back(std::move(copy));
    }
    // Anything else the loader knows (a copy dropped into /opt/…/lib and named in ld.so.conf).
    for (const auto& e : ctx.snap.environment.loader_cache) {
        if (!e.soname.starts_with("libcudnn.so")) continue;
        auto dir = ctx.host.resolve(host::dirname(e.path));
        if (!dir) continue;
        bool known = std::any_of(copies.begin(), copies.end(), [&](const Copy& c) { return c.lib_dir == *dir; });
        if (!known) copies.push_back({*dir, {}, "system", {}, {}, {}});
    }
}

}  // namespace

void probe_cudnn(Context& ctx) {
    std::vector<Copy> copies;
    collect(ctx, copies);
    std::vector<std::string> seen;
    for (auto& copy : copies) {
        if (std::find(seen.begin(), seen.end(), copy.lib_dir) != seen.end()) continue;
        seen.push_back(copy.lib_dir);
        snapshot::Cudnn c;
        c.path = copy.lib_dir;
        c.location = copy.location;
        c.cuda_major = copy.cuda_major;
        // The libraries' own word beats a package or wheel name.
        if (auto built = cuda_major_from_libraries(ctx, copy.lib_dir)) {
            c.cuda_major = built->cuda_major;
            c.evidence.push_back(std::move(built->evidence));
        }
        c.library_versions = library_versions(ctx, copy.lib_dir);
        for (const auto& h : copy.headers) {
            auto data = ctx.read(kCudnnProbe, h, 4u << 20);
            if (!data) continue;
            auto v = formats::parse_cudnn_version_header(*data);
            if (v) {
                c.header_version = v->str();
                c.evidence.push_back({h, c.header_version});
                break;
            }
            if (v.error().code != Errc::not_found) ctx.note(kCudnnProbe, h, v.error().message);
        }
        if (!copy.evidence_hint.empty()) c.evidence.push_back({copy.evidence_hint, copy.version_hint});
        for (const auto& lv : c.library_versions) c.evidence.push_back({host::join(copy.lib_dir, "libcudnn.so." + lv), lv});
        // The most precise fact wins: the header (refined by the wheel's 9.1.0.70 where they
        // agree), a full library name, package metadata, a bare major.
        if (!c.header_version.empty()) {
            c.version = copy.version_hint.starts_with(c.header_version + ".") ? copy.version_hint : c.header_version;
        } else if (!c.library_versions.empty() && text::contains(c.library_versions.front(), ".")) {
            c.version = c.library_versions.front();
        } else if (!copy.version_hint.empty()) {
            c.version = copy.version_hint;
        } else if (!c.library_versions.empty()) {
            c.version = c.library_versions.front();
        }
        if (c.version.empty()) continue;
        c.loader_visible = loader_visible(ctx, copy.lib_dir);
        c.flattened = flattened_chains(ctx, copy.lib_dir);
        ctx.snap.cudnn.push_back(std::move(c));
    }
}

}  // namespace cudoctor::probe
