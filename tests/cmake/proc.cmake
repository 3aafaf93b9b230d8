# Child programs for the proc and hx tests: a child that misbehaves on
# request, and a stand-in for the Python interpreter running the harness.
# They are built without sanitizers: an address-space rlimit must hit the
# child's own allocations, not a sanitizer's shadow memory.
foreach(helper tdx_child fake_python)
  add_executable(${helper} ${CMAKE_CURRENT_SOURCE_DIR}/helpers/${helper}.c)
  set_target_properties(${helper} PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra;-Werror"
                        LINK_OPTIONS "" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/helpers)
endforeach()

foreach(t test_proc test_hx)
  if(TARGET ${t})
    add_dependencies(${t} tdx_child fake_python)
    target_compile_definitions(${t} PRIVATE TDX_CHILD="$<TARGET_FILE:tdx_child>"
                               TDX_FAKE_PYTHON="$<TARGET_FILE:fake_python>")
    set_tests_properties(${t} PROPERTIES TIMEOUT 300)
  endif()
endforeach()

# The same tests under valgrind, where it is installed (not with sanitizers,
# which cannot share a process with it): no leak, no invalid access.
find_program(TDX_VALGRIND valgrind)
if(TDX_VALGRIND AND NOT TDX_SANITIZE)
  foreach(t test_proc test_hx)
    if(TARGET ${t})
      add_test(NAME ${t}_valgrind
               COMMAND ${TDX_VALGRIND} -q --leak-check=full
                       --error-exitcode=1 $<TARGET_FILE:${t}>
               WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
      set_tests_properties(${t}_valgrind PROPERTIES TIMEOUT 600)
    endif()
  endforeach()
endif()
