# ts_embed_json(): JSON files of resources/ embedded in the build as one generated header, an array
# of {key, text} pairs (raw string literals), so the programs need no resource files at run time.
# The lessons (resources/lessons) and the model presets (resources/models) are embedded this way.
#
#   ts_embed_json(OUTPUT <header> NAMESPACE <c++ namespace> ARRAY <array name> SOURCE <what it was
#                 generated from, for the header's first line> KEYS <key>... FILES <json file>...)
#
# KEYS and FILES go in pairs, in the array's order. Editing a file re-runs CMake (CMAKE_CONFIGURE_DEPENDS).
function(ts_embed_json)
  cmake_parse_arguments(ARG "" "OUTPUT;NAMESPACE;ARRAY;SOURCE" "KEYS;FILES" ${ARGN})
  list(LENGTH ARG_KEYS nkeys)
  list(LENGTH ARG_FILES nfiles)
  if(NOT nkeys EQUAL nfiles)
    message(FATAL_ERROR "ts_embed_json(${ARG_ARRAY}): ${nkeys} keys for ${nfiles} files")
  endif()
  set(body "")
  foreach(key file IN ZIP_LISTS ARG_KEYS ARG_FILES)
    file(READ ${file} json)
    string(APPEND body "    {\"${key}\", R\"TSJSON(${json})TSJSON\"},\n")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_FILES})
  file(CONFIGURE OUTPUT ${ARG_OUTPUT} CONTENT
"// Generated from ${ARG_SOURCE}; do not edit.
#pragma once
#include <utility>
namespace ${ARG_NAMESPACE} {
inline constexpr std::pair<const char*, const char*> ${ARG_ARRAY}[] = {
${body}};
}  // namespace ${ARG_NAMESPACE}
")
endfunction()
