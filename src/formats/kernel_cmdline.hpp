#pragma once
#include <string>
#include <string_view>
#include <vector>

/// The kernel command line, /proc/cmdline.
namespace cudoctor::formats {

/// Splits /proc/cmdline into parameters on spaces, TABs and newlines; double quotes group
/// ("a=\"x y\"" is one parameter) and are removed, as the kernel does; an unclosed quote runs to
/// the end. Empty text gives no tokens. Never fails.
std::vector<std::string> parse_kernel_cmdline(std::string_view text);

/// True when the parameters keep `module` from loading: modprobe.blacklist=, module_blacklist=,
/// rd.driver.blacklist=, rdblacklist= or blacklist= with `module` in their comma list, or
/// `<module>.modeset=0`. '-' and '_' in module names are the same, as for the kernel. Words after
/// "--" belong to init and are not looked at.
bool cmdline_blacklists(const std::vector<std::string>& tokens, std::string_view module);

}  // namespace cudoctor::formats
