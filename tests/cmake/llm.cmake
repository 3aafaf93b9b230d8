# The LLM client's tests: a canned HTTP server on 127.0.0.1 (an ephemeral
# port), started and stopped by test_llm_http itself.
add_executable(tdx_llm_server ${CMAKE_CURRENT_SOURCE_DIR}/helpers/llm_server.c)
if(TARGET test_llm_http)
  target_compile_definitions(test_llm_http PRIVATE
                             TDX_LLM_SERVER="$<TARGET_FILE:tdx_llm_server>")
  add_dependencies(test_llm_http tdx_llm_server)
  set_tests_properties(test_llm_http PROPERTIES TIMEOUT 60)
endif()
