# The fuzz preset's hook (CMakePresets.json sets CMAKE_PROJECT_TrainScope_INCLUDE to this file): once
# the top-level CMakeLists.txt has defined every library, adds ts_import_fuzzer, the libFuzzer target
# of profiling/import. The preset compiles everything with -fsanitize=fuzzer-no-link,address (coverage
# + ASan); only this target links libFuzzer's main (-fsanitize=fuzzer). Clang only.
function(_ts_add_import_fuzzer)
  if(NOT TARGET ts_profiling)
    message(FATAL_ERROR "fuzz.cmake: ts_profiling is not defined")
  endif()
  add_executable(ts_import_fuzzer ${PROJECT_SOURCE_DIR}/profiling/fuzz/import_fuzzer.cpp)
  target_link_libraries(ts_import_fuzzer PRIVATE ts_profiling)
  target_link_options(ts_import_fuzzer PRIVATE -fsanitize=fuzzer,address)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _ts_add_import_fuzzer)
