#pragma once
// Files the user names (--snapshot, --kb DIR's tables, a fleet's snapshots) and files we write
// (snapshots, watch records, plan steps): read on this computer, not through a machine image's
// Host, because they are not part of the machine being examined.
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace cudoctor::host {

/// The whole of the file at `path` (this computer's path), read until end of file and never
/// more than `cap` bytes (st_size is not trusted). Errors, each "PATH: why":
/// Errc::not_found, Errc::permission, Errc::loop as open(2) says; Errc::io "not a regular file"
/// for a folder, FIFO or device (opened without blocking, so a FIFO cannot hang the reader);
/// Errc::too_large "larger than N MiB" (or "N bytes") past `cap`; Errc::io on a read error.
[[nodiscard]] Expected<std::string> read_capped(const std::string& path, std::size_t cap);

/// As read_capped(), but a pipe or FIFO is read too, to its end: `--snapshot <(ssh node cudoctor
/// check --json)`, `--snapshot /dev/stdin`. Opened blocking, so a named FIFO waits for its writer
/// (the user named it to be read). A folder or device is Errc::io "PATH: not a regular file or
/// pipe"; the other errors are read_capped()'s.
[[nodiscard]] Expected<std::string> read_capped_or_pipe(const std::string& path, std::size_t cap);

/// Standard input (`-` for a file argument), read to its end and never more than `cap` bytes.
/// Errors name it "standard input": Errc::too_large "standard input: larger than N MiB",
/// Errc::io on a read error.
[[nodiscard]] Expected<std::string> read_capped_stdin(std::size_t cap);

/// Replaces the file at `path` with `bytes` so that a reader sees the old file or the whole new
/// one, never half: a temporary file beside it (same folder, so the same filesystem) is written,
/// fsync'ed and renamed over `path`, then the folder is fsync'ed where the filesystem allows.
/// `mode` is set exactly when given (fchmod, umask ignored); otherwise a new file gets 0644 less
/// the umask. On any failure the old file is untouched, no temporary file is left, and the error
/// is Errc::io "cannot write PATH: why".
[[nodiscard]] Expected<void> write_atomically(const std::string& path, std::string_view bytes, std::optional<mode_t> mode = std::nullopt);

/// The capped-read limit in words, as read_capped() writes it: "64 MiB" or "1000 bytes".
[[nodiscard]] std::string size_limit_text(std::size_t cap);

}  // namespace cudoctor::host
