#pragma once
// Node names written the way cluster people read them (Slurm's hostlist form):
// {"gpu001", "gpu002", "gpu003", "gpu007", "login"} → "gpu[001-003,007],login".
#include <string>
#include <vector>

namespace cudoctor::fleet {

/// Compresses names that end in a number into prefix[ranges] groups, keeping zero padding apart
/// ("n01" and "n1" are different names). Names without a trailing number stay as they are.
/// Groups come in the order their first name appears; an empty list gives "".
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace cudoctor::fleet
