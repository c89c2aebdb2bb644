#pragma once
// What `cudoctor arch FILE|DIR|PACKAGE…` scans: the user's arguments expanded into files.
#include <string>
#include <vector>

#include "common/error.hpp"
#include "host/host.hpp"

namespace cudoctor::gpucode {

struct Candidate {
    std::string path;    ///< machine path
    bool named = false;  ///< named by the user (not found by a folder walk): a non-ELF is an error
};

/// An argument that named an installed Python package, and the files it expanded to.
struct PackageInput {
    std::string name;            ///< "torch", as given
    std::string site;            ///< the site-packages folder it was found in
    std::size_t first_file = 0;  ///< its files are Expansion::files[first_file, end_file)
    std::size_t end_file = 0;    ///< (files another argument reached first are not repeated)
};

struct Expansion {
    std::vector<Candidate> files;                       ///< no duplicates (by canonical path), argument order, folders sorted
    std::vector<std::pair<std::string, Error>> errors;  ///< an argument that is nothing scannable
    std::vector<PackageInput> packages;                 ///< the arguments that were Python packages
};

/// Expands arguments: a file is itself; a folder is walked (symbolic links to folders are not
/// followed, so loops cannot hang it; files reached twice are scanned once) for ELF-looking
/// names (*.so, *.so.*, *.o, *.node) and executable files; an argument that is no path but a
/// Python module name ("torch", "tensorflow") is looked up in `python_sites` as a package
/// folder or a single extension module (name.*.so). Errors per argument: Errc::not_found "no
/// such file, folder or installed Python package"; Errc::not_found "no ELF files … in this
/// folder" for a folder argument whose walk meets no candidate (files another argument reached
/// first count as met); a walk stops after `max_files` candidates.
Expansion expand_inputs(const host::Host& host, const std::vector<std::string>& args, const std::vector<std::string>& python_sites,
                        std::size_t max_files = 200000);

}  // namespace cudoctor::gpucode
