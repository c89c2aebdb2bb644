// Fuzzes every reader of formats/python_meta.hpp with the same bytes. The first line, when
// short, is also used as a variable name for find_python_string_assignment.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/python_meta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto v = parse_torch_version_py(text); v && v->version.size() > size) __builtin_trap();
    (void)parse_tf_build_info(text);
    if (auto v = parse_dist_metadata(text); v && v->name.empty()) __builtin_trap();
    (void)find_python_string_assignment(text, "_version");
    if (const auto nl = text.find('\n'); nl < 64)  // npos is not
        (void)find_python_string_assignment(text.substr(nl + 1), text.substr(0, nl));
    (void)parse_pyvenv_cfg(text);
    return 0;
}
