# The fault-injection suite (docs/faults.md): hostile candidates through the
# optimize loop with a canned LLM server, hostile tasks, on the CPU. One ctest
# test that uses two processors; the table of cases is written to
# build/faults.md. Label `faults`: `ctest -L faults` runs only it.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME faults_cpu
         COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                 ${CMAKE_CURRENT_SOURCE_DIR}/python/test_faults.py
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(faults_cpu PROPERTIES
  ENVIRONMENT "TDX_FAULTS=1;PYTHONPATH=${CMAKE_SOURCE_DIR}/python;TDX_CLI=$<TARGET_FILE:tritondx>;TDX_LLM_SERVER=$<TARGET_FILE:tdx_llm_server>;CUDA_VISIBLE_DEVICES=;TDX_FAULTS_REPORT=${CMAKE_BINARY_DIR}/faults.md"
  LABELS faults PROCESSORS 2 TIMEOUT 900)
