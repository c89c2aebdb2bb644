#include "common/error.hpp"

namespace cudoctor {

const char* to_string(Errc code) {
    switch (code) {
        case Errc::not_found: return "not found";
        case Errc::permission: return "permission denied";
        case Errc::too_large: return "too large";
        case Errc::loop: return "symbolic link loop";
        case Errc::io: return "I/O error";
        case Errc::parse: return "unparseable";
        case Errc::truncated: return "truncated";
        case Errc::timeout: return "timed out";
        case Errc::usage: return "usage error";
        case Errc::unsupported: return "unsupported";
    }
    return "error";
}

}  // namespace cudoctor
