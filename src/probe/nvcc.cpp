#include "probe/nvcc.hpp"

#include "formats/shell_wrapper.hpp"

namespace cudoctor::probe {

std::optional<std::string> real_nvcc(Context& ctx, std::string_view path) {
    auto real = ctx.host.resolve(path);
    if (!real) return std::nullopt;
    for (int hop = 0; hop < 4; ++hop) {
        auto head = ctx.host.read_head(*real, 4096);
        if (!head) break;
        auto target = formats::wrapper_exec_target(*head);
        if (!target || !ctx.host.is_executable_file(*target)) break;
        auto next = ctx.host.resolve(*target);
        if (!next || *next == *real) break;
        real = std::move(next);
    }
    return std::move(*real);
}

}  // namespace cudoctor::probe
