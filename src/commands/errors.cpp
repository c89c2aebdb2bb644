#include "commands/errors.hpp"

#include <nlohmann/json.hpp>

namespace cudoctor::commands {

ExitStatus report_error(const Error& e, bool json, std::string_view command, std::ostream& out, std::ostream& err, ExitStatus status) {
    if (json) out << nlohmann::json{{"error", {{"code", to_string(e.code)}, {"message", e.message}}}}.dump(2) << "\n";
    else err << "cudoctor " << command << ": " << e.message << "\n";
    return status;
}

}  // namespace cudoctor::commands
