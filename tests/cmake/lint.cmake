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
