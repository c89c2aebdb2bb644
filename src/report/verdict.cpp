#include <string>

#include "report/report.hpp"

namespace cudoctor::report {
namespace {

std::string count(std::size_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

}  // namespace

std::string verdict_line(const snapshot::Snapshot& snap) {
    std::size_t errors = 0, warnings = 0, infos = 0;
    std::string ids;
    for (const auto& f : snap.findings) {
        if (f.severity == snapshot::Severity::error) ++errors;
        else if (f.severity == snapshot::Severity::warning) ++warnings;
        else ++infos;
        if (f.severity == snapshot::Severity::info) continue;
        ids += (ids.empty() ? "" : ", ") + f.id;
    }
    if (errors + warnings == 0) return infos == 0 ? "✓ no problems found" : "✓ no problems found (" + count(infos, "note") + ")";
    std::string line = errors ? "✗ " + count(errors, "error") : "! " + count(warnings, "warning");
    if (errors && warnings) line += ", " + count(warnings, "warning");
    return line + ": " + ids;
}

}  // namespace cudoctor::report
