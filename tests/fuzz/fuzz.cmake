# The fuzz preset's hook (CMakePresets.json sets CMAKE_PROJECT_TrainScope_INCLUDE to this file): once
# the top-level CMakeLists.txt has defined every library, adds one libFuzzer target per reader of
# outside data: ts_import_fuzzer (profiling/import: PyTorch/Chrome traces), ts_nsys_fuzzer (Nsight
# Systems SQLite exports), ts_session_fuzzer
# (.tsession files), ts_model_spec_fuzzer, ts_cifar10_fuzzer and ts_checkpoint_fuzzer (the engine's readers),
# ts_lesson_fuzzer (lessons), ts_setup_fuzzer (setups). Every fuzzer and its dictionary lives here, in tests/fuzz/.
# The preset compiles everything with -fsanitize=fuzzer-no-link,address (coverage + ASan); only these
# targets link libFuzzer's main (-fsanitize=fuzzer). Clang only. scripts/bootstrap.sh fuzz runs them.
function(_ts_add_fuzzer name source)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ts_profiling ${ARGN})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address)
endfunction()

function(_ts_add_fuzzers)
  if(NOT TARGET ts_profiling)
    message(FATAL_ERROR "fuzz.cmake: ts_profiling is not defined")
  endif()
  _ts_add_fuzzer(ts_import_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/import_fuzzer.cpp)
  _ts_add_fuzzer(ts_nsys_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/nsys_fuzzer.cpp)
  _ts_add_fuzzer(ts_session_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/session_fuzzer.cpp)
  _ts_add_fuzzer(ts_model_spec_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/model_spec_fuzzer.cpp)
  _ts_add_fuzzer(ts_cifar10_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/cifar10_fuzzer.cpp)
  find_package(ZLIB REQUIRED)  # the checkpoint fuzzer writes the CRC-32 of its payloads
  _ts_add_fuzzer(ts_checkpoint_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/checkpoint_fuzzer.cpp ZLIB::ZLIB)
  _ts_add_fuzzer(ts_lesson_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/lesson_fuzzer.cpp ts_lessons)
  _ts_add_fuzzer(ts_setup_fuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/setup_fuzzer.cpp ts_setups)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _ts_add_fuzzers)
