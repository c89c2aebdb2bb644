#pragma once
#include <string>

// "libz.so.1" from ("libz", ZLIB_VER_MAJOR): a library named after the major version that keeps
// its ABI, the one its header declares, spelled from that header's own macro.
#define CUDOCTOR_SONAME_DIGITS(major) #major
#define CUDOCTOR_SONAME(stem, major)  stem ".so." CUDOCTOR_SONAME_DIGITS(major)

namespace cudoctor {

/// One of the tool's own shared libraries (packaging/ declares it), opened with dlopen on its
/// first use instead of being linked. A linked library is mapped, relocated and bound at every
/// start, `check` included, for what only a few commands use: zlib, liblzma, libzstd and liblz4
/// only unpack (installers, fatbins, .npz), Vectorscan only scans logs, libcrypto only digests.
/// It is not the machine's library: it is opened here, never through the Host.
class SharedLibrary {
  public:
    /// dlopen(soname, RTLD_NOW | RTLD_LOCAL). It is never closed: its functions may run until exit.
    explicit SharedLibrary(const char* soname);

    /// The function `name` into `out`, of the type its header declares; a missing one makes
    /// the library unusable (error() says which).
    template <class Function>
    void bind(const char* name, Function& out) {
        out = reinterpret_cast<Function>(symbol(name));
    }

    /// Why it cannot be used ("cannot load libhs.so.5: …", "libz.so.1 has no inflate"), or ""
    /// when it was opened and every function bound.
    const std::string& error() const { return m_error; }

  private:
    void* symbol(const char* name);

    const char* m_soname;
    void* m_handle = nullptr;
    std::string m_error;
};

}  // namespace cudoctor
