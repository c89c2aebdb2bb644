#pragma once
// Shell start-up files: which files cudoctor reads (system-wide and each user's), and the probe
// that records their assignments to PATH, LD_LIBRARY_PATH, CUDA_LAUNCH_BLOCKING and to variables
// naming /usr/local/cuda* (Environment::startup_lines), with what the image says about them.
#include <cstddef>
#include <string>
#include <vector>

#include "host/host.hpp"

namespace cudoctor::probe {

class Context;

/// The most of one start-up file (or modulefile) cudoctor reads: a file past 1 MiB is not one
/// people edit; reading it stops with a note.
inline constexpr std::size_t kRcCap = 1u << 20;

/// The shell start-up files cudoctor reads, whether they exist or not: the system's
/// (/etc/profile, /etc/bash.bashrc, /etc/environment, /etc/profile.d/*, zsh's and fish's) and,
/// for every home (/root, /home/*, /etc/passwd's /home/… homes), .bashrc, .bash_profile,
/// .bash_login, .profile, .zshrc, .zshenv, .zprofile and fish's config.fish.
std::vector<std::string> shell_rc_files(const host::Host& host);

/// Fills Environment::startup_lines and cuda_launch_blocking. A file that cannot be read (a
/// loop, too large, no permission) adds a note and is skipped; fish files are not read.
void read_startup_files(Context& ctx);

}  // namespace cudoctor::probe
