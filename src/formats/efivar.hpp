#pragma once
#include <string_view>

#include "common/error.hpp"

/// efivarfs variables (/sys/firmware/efi/efivars/<Name>-<GUID>).
namespace cudoctor::formats {

/// A one-byte boolean EFI variable such as SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c or
/// SetupMode-…: 4 bytes of attributes (little-endian u32, any value accepted), then the data byte
/// 1 (true) or 0 (false); bytes after it are ignored.
/// Errors: Errc::truncated when there are fewer than 5 bytes; Errc::parse when the data byte is
/// neither 0 nor 1.
Expected<bool> parse_efivar_bool(std::string_view bytes);

}  // namespace cudoctor::formats
