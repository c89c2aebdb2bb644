#pragma once
// How a command reports the error that ends it (bad usage, unreadable input): one convention for
// every subcommand.
#include <ostream>
#include <string_view>

#include "common/error.hpp"
#include "common/exit_status.hpp"

namespace cudoctor::commands {

/// With `json`, one object {"error": {"code", "message"}} on `out`: the stream a --json
/// consumer reads, so `cudoctor X --json | jq` always gets a document. Otherwise one line
/// "cudoctor COMMAND: message" on `err`. Returns `status` (usage unless said otherwise).
ExitStatus report_error(const Error& e, bool json, std::string_view command, std::ostream& out, std::ostream& err,
                        ExitStatus status = ExitStatus::usage);

}  // namespace cudoctor::commands
