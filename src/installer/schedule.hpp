#pragma once
// What the single pass must compute for one file: the digests its format records (with the
// values to expect) and the compressed streams to check, each over a byte range.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "installer/digest_sinks.hpp"
#include "installer/stream_check.hpp"

namespace cudoctor::installer {

struct PlannedDigest {
    std::string check;     ///< report line name: "md5", "sha256", "crc", "user-sha256", "user-md5"
    std::string what;      ///< "payload 1", "the file", "lines 4 to the end (NVIDIA fork)"
    std::string expected;  ///< lower-case hex, or the decimal CRC
    std::unique_ptr<DigestSink> sink;
};

struct PlannedStream {
    std::string what;  ///< "payload 1", "data.tar.xz", "the file"
    std::unique_ptr<StreamCheckSink> sink;
};

struct Schedule {
    std::vector<PlannedDigest> digests;
    std::vector<PlannedStream> streams;
    std::vector<std::string> notes;  ///< what is not checked and why

    std::vector<ByteSink*> sinks() const;
};

}  // namespace cudoctor::installer
