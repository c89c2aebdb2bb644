// cudoctor explain: read an error message or a whole log (arguments, --log FILE or standard
// input), name the causes root first, and check them against this machine (or --root DIR, or a
// --snapshot FILE from the machine where the error happened).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/check.hpp"
#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "explain/explain.hpp"
#include "explain/render.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot_json.hpp"

namespace cudoctor::commands {
namespace {

struct ExplainOptions {
    std::vector<std::string> texts;            ///< the error text given as arguments
    std::optional<std::string> log;            ///< --log FILE ("-" = standard input)
    MachineOptions machine;                    ///< --root, --kb, --python, --no-exec
    std::optional<std::string> snapshot_file;  ///< --snapshot FILE
    bool json = false;
    bool no_machine = false;
    bool quiet = false;  ///< main's -q/--quiet: the root cause (or "no known …") in one line
};

constexpr std::size_t kReadChunk = 1u << 20;

ExitStatus usage_error(const ExplainOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "explain", out, err);
}

/// Streams a file descriptor through the reader in chunks (never all in memory). A NUL byte
/// ends it as grep decides: text logs have none, and a binary file (a core dump, a sparse file,
/// /dev/zero) would otherwise be read to its end, or forever.
Expected<void> stream_fd(int fd, const std::string& name, explain::Reader& reader) {
    std::vector<char> buf(kReadChunk);
    std::uint64_t offset = 0;
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n == 0) return {};
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(Errc::io, "cannot read " + name + ": " + std::strerror(errno));
        }
        const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
        if (const auto nul = chunk.find('\0'); nul != std::string_view::npos)
            return fail(Errc::parse, name + ": a binary file, not a log (a NUL byte at offset " + std::to_string(offset + nul) + ")");
        reader.feed(chunk);
        offset += chunk.size();
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

ExitStatus run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err) {
    if (!options.texts.empty() && options.log)
        return usage_error(options, out, err, {Errc::usage, "give the error either as text or with --log, not both"});
    if (options.texts.empty() && !options.log && ::isatty(STDIN_FILENO))
        return usage_error(options, out, err,
                           {Errc::usage,
                            "nothing to explain: give the error text, --log FILE, or pipe a log into it "
                            "(make 2>&1 | cudoctor explain)"});
    // The machine the causes are checked against: opened (not yet probed) before any reading, so
    // a broken root is a usage error at once; only the KB when there is none to open.
    const bool wants_host = !options.snapshot_file && !options.no_machine;
    std::optional<Machine> machine;
    std::optional<kb::Kb> kb;
    if (wants_host) {
        auto m = open_machine(options.machine);
        if (!m) return usage_error(options, out, err, m.error());
        machine = std::move(*m);
        kb = machine->kb;
    } else {
        auto loaded = kb::Kb::load(options.machine.kb_dir);
        if (!loaded) return usage_error(options, out, err, loaded.error());
        kb = std::move(*loaded);
    }
    auto rows = explain::load_catalog(options.machine.kb_dir);
    if (!rows) return usage_error(options, out, err, rows.error());
    auto reader = explain::Reader::create(std::move(*rows));
    if (!reader) return usage_error(options, out, err, reader.error());
    // A broken snapshot is a usage error before any reading, too.
    std::optional<snapshot::Snapshot> loaded;
    if (options.snapshot_file) {
        auto s = load_snapshot(*options.snapshot_file);
        if (!s) return usage_error(options, out, err, s.error());
        loaded = std::move(*s);
    }

    if (!options.texts.empty()) {
        for (const auto& t : options.texts) {
            reader->feed(t);
            reader->feed("\n");
        }
    } else if (auto ok = read_log(options.log.value_or("-"), *reader); !ok) {
        return usage_error(options, out, err, ok.error());
    }
    reader->finish();
    if (!reader->error().empty()) return usage_error(options, out, err, Error{Errc::parse, "the error catalog: " + reader->error()});
    auto causes = reader->causes();

    explain::RenderContext ctx{reader->lines(), reader->bytes(), ""};
    if (!causes.empty() && !options.no_machine) {
        std::optional<host::BuildResources> resources;
        if (loaded) {
            ctx.machine = "snapshot " + *options.snapshot_file;
        } else {
            loaded = take_snapshot(machine->host, *kb, options.machine, Probe::all);
            resources = host::read_build_resources(machine->host);
            ctx.machine = options.machine.root ? "root " + *options.machine.root : "this machine";
        }
        explain::tie_to_machine(causes, *loaded, *kb, resources);
    }
    if (options.json) explain::render_json(causes, ctx, out);
    else if (options.quiet) out << explain::verdict_line(causes, ctx) << "\n";
    else explain::render_text(causes, ctx, out);
    return causes.empty() ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_explain_command(CLI::App& app) {
    auto options = std::make_shared<ExplainOptions>();
    auto* cmd = app.add_subcommand("explain", "read an error message or a log, name its root cause, and check it against this machine");
    cmd->add_option("text", options->texts, "the error message (else --log FILE, else standard input)");
    cmd->add_option("--log", options->log, "read a whole log file (build, pytest, apt, a traceback…); - for standard input");
    const auto shared = add_machine_options(cmd, options->machine, {.python = true, .no_exec = true});
    auto* snapshot = cmd->add_option("--snapshot", options->snapshot_file,
                                     "check the causes against a saved snapshot (check --json) of the machine where the error happened")
                         ->excludes(shared.root);
    cmd->add_flag("--json", options->json, "print the causes as JSON");
    cmd->add_flag("--no-machine", options->no_machine, "only read the log: do not check the causes against a machine")
        ->excludes(shared.root)
        ->excludes(snapshot);
    cmd->footer("Exit code: 0 a cause was found, 1 nothing known matched, 2 usage or unreadable input.");
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_explain(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
