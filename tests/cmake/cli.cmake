# Shell-driven CLI tests: every tests/cli/test_*.sh is one ctest test, run
# from the source root as `bash SCRIPT TRITONDX SOURCE_DIR`.
file(GLOB TDX_CLI_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_*.sh)
foreach(script ${TDX_CLI_TESTS})
  get_filename_component(name ${script} NAME_WE)
  string(REGEX REPLACE "^test_" "" name ${name})
  add_test(NAME cli_${name}
           COMMAND bash ${script} $<TARGET_FILE:tritondx> ${CMAKE_SOURCE_DIR}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli_${name} PROPERTIES TIMEOUT 120
                       ENVIRONMENT "NO_COLOR=;TERM=dumb")
endforeach()
