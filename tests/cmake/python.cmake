# Python harness tests (pytest, Triton's CPU interpreter): one ctest test.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME python_harness
         COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(python_harness PROPERTIES
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/python;TDX_CLI=$<TARGET_FILE:tritondx>;TDX_LLM_SERVER=$<TARGET_FILE:tdx_llm_server>;CUDA_VISIBLE_DEVICES="
  TIMEOUT 1800)
