#include "common/shared_library.hpp"

#include <dlfcn.h>

namespace cudoctor {

SharedLibrary::SharedLibrary(const char* soname) : m_soname(soname) {
    m_handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
        const char* why = ::dlerror();
        m_error = why ? why : std::string("cannot load ") + soname;
    }
}

void* SharedLibrary::symbol(const char* name) {
    if (!m_handle) return nullptr;
    void* found = ::dlsym(m_handle, name);
    if (!found && m_error.empty()) m_error = std::string(m_soname) + " has no " + name;
    return found;
}

}  // namespace cudoctor
