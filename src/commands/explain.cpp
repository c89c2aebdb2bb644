// cudoctor explain: read an error message or a whole log (arguments, --log FILE or standard
// input), name the causes root first, and check them against this machine (or --root DIR, or a
// --snapshot FILE from the machine where the error happened).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/check.hpp"
#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "explain/explain.hpp"
#include "explain/render.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "snapshot/snapshot_json.hpp"

namespace cudoctor::commands {
namespace {

struct ExplainOptions {
    std::vector<std::string> texts;            ///< the error text given as arguments
    std::optional<std::string> log;            ///< --log FILE ("-" = standard input)
    std::optional<std::string> root;           ///< --root DIR
    std::optional<std::string> snapshot_file;  ///< --snapshot FILE
    std::optional<std::string> kb_dir;
    std::vector<std::string> pythons;
    bool json = false;
    bool no_machine = false;
    bool no_exec = false;
};

constexpr std::size_t kReadChunk = 1u << 20;

ExitStatus usage_error(const ExplainOptions& options, const Error& e) {
    return report_error(e, options.json, "explain", std::cout, std::cerr);
}

/// Streams a file descriptor through the reader in chunks (never all in memory).
Expected<void> stream_fd(int fd, const std::string& name, explain::Reader& reader) {
    std::vector<char> buf(kReadChunk);
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n == 0) return {};
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(Errc::io, "cannot read " + name + ": " + std::strerror(errno));
        }
        reader.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    }
}

Expected<void> read_log(const std::string& file, explain::Reader& reader) {
    if (file == "-") return stream_fd(STDIN_FILENO, "standard input", reader);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return fail(errno == ENOENT   ? Errc::not_found
                    : errno == EACCES ? Errc::permission
                                      : Errc::io,
                    "cannot open log " + file + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        return fail(Errc::io, "cannot read log " + file + ": it is a folder");
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a FIFO opened without blocking, then read normally
    auto ok = stream_fd(fd, file, reader);
    ::close(fd);
    return ok;
}

ExitStatus run_explain(const ExplainOptions& options) {
    if (!options.texts.empty() && options.log)
        return usage_error(options, {Errc::usage, "give the error either as text or with --log, not both"});
    if (options.texts.empty() && !options.log && ::isatty(STDIN_FILENO))
        return usage_error(options, {Errc::usage,
                                     "nothing to explain: give the error text, --log FILE, or pipe a log into it "
                                     "(make 2>&1 | cudoctor explain)"});
    auto kb = kb::Kb::load(options.kb_dir);
    if (!kb) return usage_error(options, kb.error());
    auto rows = explain::load_catalog(options.kb_dir);
    if (!rows) return usage_error(options, rows.error());
    auto reader = explain::Reader::create(std::move(*rows));
    if (!reader) return usage_error(options, reader.error());
    // A broken snapshot or root is a usage error before any reading.
    std::optional<snapshot::Snapshot> loaded;
    if (options.snapshot_file) {
        auto s = load_snapshot(*options.snapshot_file);
        if (!s) return usage_error(options, s.error());
        loaded = std::move(*s);
    }
    std::optional<host::Host> host;
    if (!options.snapshot_file && !options.no_machine) {
        auto h = options.root ? host::Host::rooted(*options.root) : Expected<host::Host>(host::Host::real());
        if (!h) return usage_error(options, h.error());
        host = std::move(*h);
    }

    if (!options.texts.empty()) {
        for (const auto& t : options.texts) {
            reader->feed(t);
            reader->feed("\n");
        }
    } else if (auto ok = read_log(options.log.value_or("-"), *reader); !ok) {
        return usage_error(options, ok.error());
    }
    reader->finish();
    auto causes = reader->causes();

    explain::RenderContext ctx{reader->lines(), reader->bytes(), ""};
    if (!causes.empty() && !options.no_machine) {
        if (loaded) {
            ctx.machine = "snapshot " + *options.snapshot_file;
        } else {
            probe::Options probe_options;
            probe_options.pythons = options.pythons;
            probe_options.allow_processes = !options.no_exec;
            loaded = probe::probe_machine(*host, *kb, probe_options);
            ctx.machine = options.root ? "root " + *options.root : "this machine";
        }
        explain::tie_to_machine(causes, *loaded, *kb);
    }
    if (options.json) explain::render_json(causes, ctx, std::cout);
    else explain::render_text(causes, ctx, std::cout);
    return causes.empty() ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_explain_command(CLI::App& app) {
    auto options = std::make_shared<ExplainOptions>();
    auto* cmd = app.add_subcommand("explain", "read an error message or a log, name its root cause, and check it against this machine");
    cmd->add_option("text", options->texts, "the error message (else --log FILE, else standard input)");
    cmd->add_option("--log", options->log, "read a whole log file (build, pytest, apt, a traceback…); - for standard input");
    cmd->add_option("--root", options->root, "check the causes against a machine image (a folder laid out like /)");
    cmd->add_option("--snapshot", options->snapshot_file,
                    "check the causes against a saved snapshot (check --json) of the machine where the error happened")
        ->excludes("--root");
    cmd->add_option("--kb", options->kb_dir, "read knowledge-base tables (and error_catalog.tsv) from DIR");
    cmd->add_option("--python", options->pythons, "also inspect this Python interpreter's packages (repeatable)");
    cmd->add_flag("--json", options->json, "print the causes as JSON");
    cmd->add_flag("--no-machine", options->no_machine, "only read the log: do not check the causes against a machine")
        ->excludes("--root")
        ->excludes("--snapshot");
    cmd->add_flag("--no-exec", options->no_exec, "never start a child process while probing");
    cmd->footer("Exit code: 0 a cause was found, 1 nothing known matched, 2 usage or unreadable input.");
    return {cmd, [options] { return run_explain(*options); }};
}

}  // namespace cudoctor::commands
