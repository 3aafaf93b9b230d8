# Static analysis as a test: cppcheck over the core library and the CLI with
# the checks chosen here (warning, performance, portability); any finding fails.
find_program(TDX_CPPCHECK cppcheck)
if(TDX_CPPCHECK)
  add_test(NAME lint_cppcheck
           COMMAND ${TDX_CPPCHECK} --quiet --enable=warning,performance,portability --std=c11
                   --error-exitcode=1 --inline-suppr -I ${CMAKE_SOURCE_DIR}/src
                   ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/cli)
  set_tests_properties(lint_cppcheck PROPERTIES LABELS lint TIMEOUT 600)
else()
  message(FATAL_ERROR "cppcheck is needed for the lint test (scripts/setup.sh installs it)")
endif()

# clang-tidy with the checks of .clang-tidy over every file of src/ and cli/,
# through the compile database of this build; any warning fails the test.
find_program(TDX_RUN_CLANG_TIDY NAMES run-clang-tidy-14 run-clang-tidy)
find_program(TDX_CLANG_TIDY NAMES clang-tidy-14 clang-tidy)
if(TDX_RUN_CLANG_TIDY AND TDX_CLANG_TIDY)
  cmake_host_system_information(RESULT TDX_NCPU QUERY NUMBER_OF_LOGICAL_CORES)
  add_test(NAME lint_clang_tidy
           COMMAND ${TDX_RUN_CLANG_TIDY} -clang-tidy-binary ${TDX_CLANG_TIDY} -p ${CMAKE_BINARY_DIR}
                   -j ${TDX_NCPU} -quiet
                   "${CMAKE_SOURCE_DIR}/(src|cli)/.*\\.c$"
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(lint_clang_tidy PROPERTIES LABELS lint TIMEOUT 900
                       FAIL_REGULAR_EXPRESSION "warning:|error:")
else()
  message(FATAL_ERROR "clang-tidy is needed for the lint test (scripts/setup.sh installs it)")
endif()
