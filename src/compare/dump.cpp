#include "compare/dump.hpp"

#include <cstdint>
#include <set>

#include "formats/npy.hpp"
#include "formats/npz.hpp"
#include "formats/safetensors.hpp"

namespace cudoctor::compare {
namespace {

Unexpected<Error> in_file(std::string_view path, const Error& e) {
    return Unexpected<Error>(Error{e.code, std::string(path) + ": " + e.message});
}

/// The Host names the first missing component ("/data: No such file…"): say which dump it was.
Unexpected<Error> open_error(std::string_view path, const Error& e) {
    if (e.code == Errc::not_found) return fail(Errc::not_found, std::string(path) + ": no such file or folder");
    if (e.message.starts_with(path)) return Unexpected<Error>(e);
    return in_file(path, e);
}

bool looks_like_zip(std::string_view bytes) { return bytes.starts_with("PK\x03\x04") || bytes.starts_with("PK\x05\x06"); }

std::string strip_npy(std::string_view name) { return std::string(name.ends_with(".npy") ? name.substr(0, name.size() - 4) : name); }

}  // namespace

Expected<Dump> Dump::open(const host::Host& host, std::string_view path, std::uint64_t inflate_cap, std::uint64_t read_through_from) {
    Dump dump;
    dump.m_path = std::string(path);
    if (host.is_dir(path)) {
        auto names = host.list_dir(path);
        if (!names) return open_error(path, names.error());
        dump.m_format = "npy folder";
        for (const auto& name : *names) {
            if (!name.ends_with(".npy")) continue;
            const std::string file = host::join(path, name);
            if (!host.is_file(file)) continue;
            auto mapped = host::MappedFile::open(host, file);
            if (!mapped) return open_error(file, mapped.error());
            auto t = formats::parse_npy(mapped->bytes());
            if (!t) return in_file(file, t.error());
            t->name = strip_npy(name);
            dump.m_tensors.push_back(std::move(*t));
            dump.m_files.push_back(std::move(*mapped));
        }
        if (dump.m_tensors.empty()) return fail(Errc::parse, std::string(path) + ": a folder without .npy files");
        return dump;
    }

    // One file (safetensors, .npy, .npz): a large one keeps its descriptor, so its tensors are
    // read with pread(2) instead of through the mapping (a folder of .npy files keeps none: it
    // would hold as many descriptors as files).
    auto mapped = host::MappedFile::open(host, path, read_through_from);
    if (!mapped) return open_error(path, mapped.error());
    const std::string_view bytes = mapped->bytes();
    if (formats::looks_like_npy(bytes)) {
        dump.m_format = "npy";
        auto t = formats::parse_npy(bytes);
        if (!t) return in_file(path, t.error());
        t->name = strip_npy(host::basename(path));
        dump.m_tensors.push_back(std::move(*t));
    } else if (looks_like_zip(bytes)) {
        dump.m_format = "npz";
        auto entries = formats::read_zip_directory(bytes);
        if (!entries) return in_file(path, entries.error());
        for (const auto& e : *entries) {
            if (!e.name.ends_with(".npy")) continue;  // np.savez writes nothing else; skip what others add
            std::string_view member;
            if (e.method == 0) {
                auto m = formats::stored_member(bytes, e);
                if (!m) return in_file(path, m.error());
                member = *m;
            } else {
                auto inflated = formats::inflate_member(bytes, e, inflate_cap);
                if (!inflated) return in_file(path, inflated.error());
                dump.m_inflated.push_back(std::make_unique<std::string>(std::move(*inflated)));
                member = *dump.m_inflated.back();
            }
            auto t = formats::parse_npy(member);
            if (!t) return in_file(path, Error{t.error().code, e.name + ": " + t.error().message});
            t->name = strip_npy(e.name);
            dump.m_tensors.push_back(std::move(*t));
        }
    } else {
        dump.m_format = "safetensors";
        auto file = formats::parse_safetensors(bytes);
        if (!file) return in_file(path, file.error());
        dump.m_tensors = std::move(file->tensors);
        if (auto trace = formats::layer_trace_in_metadata(file->metadata)) {
            if (*trace) dump.m_trace = std::move(**trace);
            else dump.m_trace_problem = std::string(path) + ": " + trace->error().message;
        }
    }
    if (dump.m_format != "safetensors") {
        // An .npz or .npy has no metadata place: the trace is a file beside it.
        const std::string sidecar = std::string(path) + std::string(formats::kLayerTraceSidecar);
        if (host.is_file(sidecar)) {
            auto text = host.read_file(sidecar, formats::kSafetensorsMaxHeader);
            auto trace = text ? formats::parse_layer_trace(*text) : Expected<formats::LayerTrace>(Unexpected<Error>(text.error()));
            if (trace) dump.m_trace = std::move(*trace);
            else dump.m_trace_problem = sidecar + ": " + trace.error().message;
        }
    }
    dump.m_files.push_back(std::move(*mapped));

    std::set<std::string_view> seen;
    for (const auto& t : dump.m_tensors)
        if (!seen.insert(t.name).second) return fail(Errc::parse, std::string(path) + ": two tensors named '" + t.name + "'");
    return dump;
}

const host::MappedFile* Dump::file_of(const formats::TensorView& t, std::uint64_t& at) const {
    const auto p = reinterpret_cast<std::uintptr_t>(t.data.data());
    for (const auto& f : m_files) {
        const auto base = reinterpret_cast<std::uintptr_t>(f.bytes().data());
        if (base && p >= base && p - base < f.size() && t.data.size() <= f.size() - (p - base)) {
            at = p - base;
            return &f;
        }
    }
    return nullptr;
}

void Dump::read_ahead(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length) const {
    std::uint64_t at = 0;
    if (offset >= t.data.size()) return;
    if (const auto* f = file_of(t, at)) f->will_need(at + offset, std::min<std::uint64_t>(length, t.data.size() - offset), true);
}

bool Dump::read(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length, char* to) const {
    std::uint64_t at = 0;
    if (offset > t.data.size() || length > t.data.size() - offset) return false;
    const auto* f = file_of(t, at);
    return f && f->read_at(at + offset, length, to);
}

bool Dump::readable(const formats::TensorView& t) const {
    std::uint64_t at = 0;
    const auto* f = file_of(t, at);
    return f && f->readable();
}

void Dump::release(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length) const {
    std::uint64_t at = 0;
    if (offset >= t.data.size()) return;
    if (const auto* f = file_of(t, at)) f->release(at + offset, std::min<std::uint64_t>(length, t.data.size() - offset));
}

}  // namespace cudoctor::compare
