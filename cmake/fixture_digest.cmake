# cmake -DFIXTURES=DIR -DOUT=FILE -P fixture_digest.cmake
#
# One SHA-256 over every entry under DIR: its path and its content, or its target for a symbolic
# link (fixtures hold dangling links and loops on purpose; none is followed). FILE is rewritten
# only when the digest changed, so the fixture roots are rebuilt exactly when a fixture changed.
#
# Why not list the fixture files as the custom command's DEPENDS: 855 of them have a ':' in their
# path (sysfs PCI addresses, /sys/bus/pci/devices/0000:01:00.0/…), which Unix Makefiles cannot
# name in a rule ("target pattern contains no '%'"), and links changed unseen.
cmake_minimum_required(VERSION 3.25)  # CMP0009: GLOB_RECURSE does not walk into linked folders
if(NOT FIXTURES OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DFIXTURES=DIR -DOUT=FILE -P fixture_digest.cmake")
endif()
file(GLOB_RECURSE entries LIST_DIRECTORIES false RELATIVE ${FIXTURES} ${FIXTURES}/*)
list(SORT entries)
set(listing "")
foreach(entry IN LISTS entries)
  if(IS_SYMLINK ${FIXTURES}/${entry})
    file(READ_SYMLINK ${FIXTURES}/${entry} target)
    string(APPEND listing "L ${entry} -> ${target}\n")
  else()
    file(SHA256 ${FIXTURES}/${entry} sum)
    string(APPEND listing "F ${entry} ${sum}\n")
  endif()
endforeach()
list(LENGTH entries count)
string(SHA256 digest "${listing}")
set(text "${digest} ${count} entries\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE ${OUT} "${text}")
