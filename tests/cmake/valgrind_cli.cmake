# The CLI under valgrind over the test corpus (tests/cli/valgrind_cli.sh):
# every command that runs without a GPU, on good and bad inputs; any invalid
# access, use of uninitialised memory or definite/indirect leak fails it.
# Not with sanitizers, which cannot share a process with valgrind.
find_program(TDX_VALGRIND_CLI valgrind)
if(TDX_VALGRIND_CLI AND NOT TDX_SANITIZE)
  add_test(NAME cli_valgrind
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/valgrind_cli.sh $<TARGET_FILE:tritondx>
                   ${CMAKE_SOURCE_DIR}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_valgrind PROPERTIES LABELS valgrind TIMEOUT 900)
elseif(NOT TDX_SANITIZE)
  message(FATAL_ERROR "valgrind is needed for the cli_valgrind test (scripts/setup.sh installs it)")
endif()
