#include "commands/errors.hpp"

#include <nlohmann/json.hpp>

#include "report/style.hpp"

namespace cudoctor::commands {

ExitStatus report_error(const Error& e, bool json, std::string_view command, std::ostream& out, std::ostream& err, ExitStatus status) {
    // The message names paths and values from outside (a file name, an image's folder).
    if (json) out << report::json_text(nlohmann::json{{"error", {{"code", to_string(e.code)}, {"message", e.message}}}}) << "\n";
    else err << "cudoctor " << command << ": " << report::outside_text(e.message, report::Medium::terminal) << "\n";
    return status;
}

}  // namespace cudoctor::commands
