#pragma once
#include <map>
#include <string>
#include <string_view>

/// /etc/os-release and /usr/lib/os-release (os-release(5)).
namespace cudoctor::formats {

/// Parses os-release text into KEY → value. Each line is KEY=value (spaces around the key and
/// after '=' tolerated); the value may mix bare text, "double quotes" (where a backslash escapes
/// \ " $ ` and is otherwise kept) and 'single quotes' (literal); outside quotes a backslash
/// escapes any byte. A later assignment of a key wins. Ignored: blank lines, comments ('#'
/// first), lines without '=', keys that are not [A-Za-z_][A-Za-z0-9_]*, and values with an
/// unterminated quote. Bytes that are not UTF-8 are kept as they are. Never fails.
std::map<std::string, std::string> parse_os_release(std::string_view text);

}  // namespace cudoctor::formats
