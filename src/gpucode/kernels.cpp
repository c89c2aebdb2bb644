#include "gpucode/kernels.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "formats/cubin.hpp"
#include "formats/elf.hpp"
#include "formats/fatbin_payload.hpp"
#include "host/mapped_file.hpp"

namespace cudoctor::gpucode {
namespace {

constexpr std::size_t kMaxDemangle = 64 * 1024;
constexpr std::size_t kMaxProblems = 20;  // per file; the rest are counted

/// A target sorted by architecture, then name ("sm_90" before "sm_90a").
using Target = std::pair<std::uint32_t, std::string>;

struct Found {
    std::set<Target> sass, ptx, lto;
    std::uint64_t images = 0;
    bool host_stub = false;
};

/// "_Z9fill_zeroPfi" of "__nv_static_<module>__Z9fill_zeroPfi"; "" for any other name.
std::string_view unprefixed_static(std::string_view name) {
    constexpr std::string_view kPrefix = "__nv_static_";
    if (!name.starts_with(kPrefix)) return {};
    const auto at = name.find("__Z", kPrefix.size());
    return at == std::string_view::npos ? std::string_view() : name.substr(at + 1);
}

std::vector<std::string> names_of(const std::set<Target>& targets) {
    std::vector<std::string> out;
    out.reserve(targets.size());
    for (const auto& t : targets) out.push_back(t.second);
    return out;
}

class Collector {
  public:
    explicit Collector(FileKernels& file) : m_file(file) {}

    void problem(std::string line) {
        if (m_problems++ < kMaxProblems) m_file.problems.push_back(std::move(line));
    }

    /// Reads one entry's kernels (decompressing into the reused buffer when needed).
    void read(std::string_view bytes, const formats::FatbinEntry& e) {
        switch (e.kind) {
            case formats::FatbinKind::sass: ++m_file.sass_images; break;
            case formats::FatbinKind::ptx: ++m_file.ptx_images; break;
            case formats::FatbinKind::lto_ir:
                ++m_file.lto_images;
                m_lto.emplace(e.arch, formats::target_name(e));
                return;
            case formats::FatbinKind::other: ++m_file.other_images; return;
        }
        auto payload = formats::entry_payload(bytes, e);
        if (!payload) return problem(payload.error().message);
        std::string_view data = *payload;
        if (e.compression != formats::FatbinCompression::none) {
            auto size = formats::decompress_entry(*payload, e, m_buffer);
            if (!size) return problem(size.error().message);
            ++m_file.compressed;
            m_file.decompressed_bytes += *size;
            data = m_buffer;
        }
        const bool sass = e.kind == formats::FatbinKind::sass;
        auto names = sass ? formats::cubin_kernels(data) : formats::ptx_entries(data);
        if (!names)
            return problem("fatbin entry at offset " + std::to_string(e.offset) + " (" + formats::target_name(e) +
                           "): " + names.error().message);
        const Target target{e.arch, formats::target_name(e)};
        for (const auto& n : *names) {
            auto& f = m_found[n];
            (sass ? f.sass : f.ptx).insert(target);
            ++f.images;
            ++m_file.kernel_images;
        }
    }

    /// The host side's launch stubs: marks the kernels they name; those no readable image
    /// defines get the file's LTO-IR targets (the only place their code can be).
    void add_host_stubs(std::string_view bytes) {
        auto stubs = formats::host_stub_kernels(bytes);
        if (!stubs) return problem("host symbols: " + stubs.error().message);
        m_file.host_stubs = stubs->size();
        // With -rdc a kernel of internal linkage gets a module-unique device name
        // ("__nv_static_36__4e2aabd2_14_ext_cu_3936fbb8__Z9fill_zeroPfi") while its stub keeps
        // the plain one ("_Z9fill_zeroPfi").
        std::map<std::string, std::string, std::less<>> statics;
        for (const auto& [name, f] : m_found)
            if (const auto plain = unprefixed_static(name); !plain.empty()) statics.emplace(plain, name);
        for (const auto& n : *stubs) {
            const auto alias = statics.find(n);
            auto& f = m_found[alias != statics.end() && !m_found.contains(n) ? alias->second : n];
            f.host_stub = true;
            if (f.images == 0) f.lto = m_lto;
        }
    }

    void finish() {
        if (m_problems > kMaxProblems)
            m_file.problems.push_back("… and " + std::to_string(m_problems - kMaxProblems) + " more problems like these");
        m_file.kernels.reserve(m_found.size());
        for (auto& [name, f] : m_found) {
            Kernel k{name, demangle(name), names_of(f.sass), names_of(f.ptx), names_of(f.lto), f.images, f.host_stub};
            m_file.kernels.push_back(std::move(k));
        }
        std::stable_sort(m_file.kernels.begin(), m_file.kernels.end(),
                         [](const Kernel& a, const Kernel& b) { return a.demangled < b.demangled; });
    }

  private:
    FileKernels& m_file;
    std::map<std::string, Found> m_found;
    std::set<Target> m_lto;
    std::string m_buffer;
    std::size_t m_problems = 0;
};

}  // namespace

bool KernelsReport::any_problem() const {
    for (const auto& f : files)
        if (!f.problems.empty()) return true;
    return false;
}

std::string demangle(const std::string& name) {
    if (const auto plain = unprefixed_static(name); !plain.empty()) return demangle(std::string(plain));
    if (!name.starts_with("_Z") || name.size() > kMaxDemangle) return name;
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

Expected<FileKernels> kernels_of_elf(std::string_view bytes, ScanDepth depth) {
    auto scan = scan_elf_bytes(bytes, depth);
    if (!scan) return Unexpected<Error>(scan.error());
    FileKernels file;
    file.size = scan->size;
    file.kind = scan->kind;
    file.problems = scan->problems;
    file.modules = scan->modules.size();
    Collector collect(file);
    for (const auto& m : scan->modules)
        for (const auto& e : m.entries) collect.read(bytes, e);
    if (auto elf = formats::parse_elf(bytes)) {
        for (const auto& s : elf->sections) file.host_symbols = file.host_symbols || s.name == ".symtab";
        if (file.host_symbols) collect.add_host_stubs(bytes);
    }
    collect.finish();
    return file;
}

void collect_kernels(const host::Host& host, const std::vector<Candidate>& files, ScanDepth depth, KernelsReport& report) {
    report.depth = depth;
    for (const auto& c : files) {
        if (!c.named) {
            auto head = host.read_head(c.path, 4);
            if (!head || !formats::is_elf(*head)) {
                ++report.skipped_not_elf;
                continue;
            }
        }
        auto mapped = host::MappedFile::open(host, c.path);
        if (!mapped) {
            report.errors.emplace_back(c.path, mapped.error());
            continue;
        }
        auto file = kernels_of_elf(mapped->bytes(), depth);
        if (!file) {
            report.errors.emplace_back(c.path, Error{file.error().code, c.path + ": " + file.error().message});
            continue;
        }
        file->path = c.path;
        if (file->modules == 0 && file->problems.empty() && file->kernels.empty()) {
            report.without_gpu_code.push_back(c.path);
            continue;
        }
        report.files.push_back(std::move(*file));
    }
}

}  // namespace cudoctor::gpucode
