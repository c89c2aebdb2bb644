#include "commands/output_format.hpp"

namespace cudoctor::commands {

CLI::Option* add_format_option(CLI::App* cmd, std::string& format, const std::vector<std::string>& choices, const std::string& help) {
    return cmd->add_option("--format", format, help)->check(CLI::IsMember(choices))->capture_default_str();
}

void apply_format(const std::string& format, bool& json, bool& markdown, bool& prometheus) {
    json = json || format == "json";
    markdown = markdown || format == "markdown";
    prometheus = prometheus || format == "prometheus";
}

}  // namespace cudoctor::commands
