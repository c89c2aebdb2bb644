#pragma once
// A dump of named tensors, opened for comparison: a .safetensors file, an .npz archive, a
// folder of .npy files, or one .npy. Files are memory-mapped; tensor data are views into the
// mappings (members np.savez_compressed deflated are inflated once, into memory this Dump owns).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "formats/layer_trace.hpp"
#include "formats/tensor_view.hpp"
#include "host/host.hpp"
#include "host/mapped_file.hpp"

namespace cudoctor::compare {

/// Default limit on what one compressed .npz member may inflate to.
inline constexpr std::uint64_t kDefaultInflateCap = std::uint64_t{8} << 30;

class Dump {
  public:
    /// Dumps from this size are read with pread(2): 2 x 1 GB compared through the mapping spent
    /// half the time mapping pages and giving them back (a virtual machine's page faults and
    /// TLB shootdowns); copied from the page cache, as cat reads, they cost one copy.
    static constexpr std::uint64_t kReadThroughFrom = std::uint64_t{64} << 20;

    /// Opens `path` (a machine path, through the Host): a folder is read as .npy files (in name
    /// order; subfolders and other files are ignored), a file by its first bytes (.npy magic,
    /// zip signature) or else as safetensors. Every error names the file: Errc::not_found,
    /// Errc::permission as the Host's; the format readers' errors for malformed files
    /// ("model.safetensors: header length 9999 past the end of the file (120 bytes)");
    /// Errc::parse for two tensors of one name and for a folder without .npy files.
    /// A one-file dump of at least `read_through_from` bytes is read with pread(2) (read()).
    static Expected<Dump> open(const host::Host& host, std::string_view path, std::uint64_t inflate_cap = kDefaultInflateCap,
                               std::uint64_t read_through_from = kReadThroughFrom);

    const std::string& path() const { return m_path; }
    /// "safetensors", "npz", "npy folder" or "npy".
    const std::string& format() const { return m_format; }
    /// In the order the dump holds them (the order they were written, for a folder by name).
    const std::vector<formats::TensorView>& tensors() const { return m_tensors; }
    /// The layer trace tools/record_layers.py stored with the tensors (safetensors: in the
    /// header's __metadata__; .npz and .npy: the sidecar PATH.layers.json), or nullptr.
    const formats::LayerTrace* trace() const { return m_trace ? &*m_trace : nullptr; }
    /// Why a trace that is there could not be read ("ref.npz.layers.json: not valid JSON: …"),
    /// "" when there is none or it was read. An unreadable trace does not stop the comparison.
    const std::string& trace_problem() const { return m_trace_problem; }

    /// Starts reading bytes [offset, offset + length) of tensor `t`'s data (one of tensors())
    /// from disk without waiting. Nothing for data already in memory (inflated .npz members).
    void read_ahead(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length) const;
    /// Gives back the memory of bytes [offset, offset + length) of tensor `t`'s data (one of
    /// tensors()) once they have been read: the pages wholly inside the range leave the process
    /// (the file stays in the page cache; reading them again maps them again). Nothing for data
    /// this Dump holds in memory (inflated .npz members).
    void release(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length) const;

    /// Copies bytes [offset, offset + length) of tensor `t`'s data into `to` with pread(2), not
    /// through the mapping (no page is mapped, none has to be given back). False when `t` is not
    /// read that way (see readable()) or the read fails: its view still holds the bytes.
    bool read(const formats::TensorView& t, std::uint64_t offset, std::uint64_t length, char* to) const;
    /// Whether read() reads `t`: a tensor of a one-file dump of at least open()'s
    /// `read_through_from` bytes.
    bool readable(const formats::TensorView& t) const;

  private:
    /// The mapped file holding `t`'s data and where in it the data start, or nullptr.
    const host::MappedFile* file_of(const formats::TensorView& t, std::uint64_t& at) const;

    std::string m_path;
    std::string m_format;
    std::vector<formats::TensorView> m_tensors;
    std::optional<formats::LayerTrace> m_trace;
    std::string m_trace_problem;
    std::vector<host::MappedFile> m_files;
    std::vector<std::unique_ptr<std::string>> m_inflated;  // stable addresses: the views point in
};

}  // namespace cudoctor::compare
