#include "installer/schedule.hpp"

namespace cudoctor::installer {

std::vector<ByteSink*> Schedule::sinks() const {
    std::vector<ByteSink*> out;
    // Streams first: decompression is the slowest consumer, its thread should start earliest.
    for (const auto& s : streams) out.push_back(s.sink.get());
    for (const auto& d : digests) out.push_back(d.sink.get());
    return out;
}

}  // namespace cudoctor::installer
