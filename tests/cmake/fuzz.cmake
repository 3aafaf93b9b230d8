# One ctest test per libFuzzer target fuzz/fuzz_<name>.c: scripts/fuzz.sh
# builds it with clang under ASan+UBSan in build-fuzz/ and runs it for 30 s
# over a copy of fuzz/corpus/<name>/ (eleven targets: about 6 CPU-minutes in
# all); a crash, a hang or a leak fails the test. Long runs are
# `scripts/fuzz.sh --long NAME EXECS` (bench/RESULTS.md). Labelled
# `fuzz`: skip them with `ctest -LE fuzz`, run only them with `ctest -L fuzz`.
# Registered even without clang, so that a missing fuzzer fails loudly.
file(GLOB TDX_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(src ${TDX_FUZZ_TARGETS})
  get_filename_component(target ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${target})
  add_test(NAME fuzz_${name}
           COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh ${name} 30
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz TIMEOUT 900)
endforeach()
