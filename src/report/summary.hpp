#pragma once
// One-line descriptions of Snapshot items, shared by the text and Markdown renderers so both say
// the same thing in the same words.
#include <string>

#include "snapshot/snapshot.hpp"

namespace cudoctor::report::detail {

std::string describe(const snapshot::Gpu& gpu);
std::string describe(const snapshot::Toolkit& tk);
std::string describe(const snapshot::Cudnn& c);
std::string describe(const snapshot::Framework& fw);
/// "path: message" (the path once, even when the message starts with it), control bytes and
/// invalid text made printable: a garbage file must not garble the terminal.
std::string describe(const snapshot::ProbeNote& note);
/// "kernel module 550.54.14 (proprietary)", or why there is none.
std::string describe_kernel_module(const snapshot::Driver& d);
std::string describe_user_space(const snapshot::Driver& d);
std::string describe_max_cuda(const snapshot::Driver& d);
/// "Windows driver 551.86 serves the GPU (WSL2) …", or "" without a Windows driver.
std::string describe_windows_driver(const snapshot::Driver& d);
/// What the GPU section says when no NVIDIA GPU is on the PCI bus (WSL2 shows its GPU as none).
std::string describe_no_gpu(const snapshot::Snapshot& snap);
std::string describe_platform(const snapshot::Platform& p);
std::string describe_platform_details(const snapshot::Platform& p);

}  // namespace cudoctor::report::detail
