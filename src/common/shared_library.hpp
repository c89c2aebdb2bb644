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

    /// A table of the library's functions (a struct of function pointers and a `std::string
    /// error`), filled by `bind_all(library, table)`; `error` is the library's error().
    template <class Functions, class BindAll>
    static Functions open(const char* soname, BindAll bind_all) {
        Functions functions;
        SharedLibrary library(soname);
        bind_all(library, functions);
        functions.error = library.error();
        return functions;
    }

  private:
    void* symbol(const char* name);

    const char* m_soname;
    void* m_handle = nullptr;
    std::string m_error;
};

}  // namespace cudoctor
