# The triage corpus kernels run on the CPU with Triton's interpreter and are
# compared with PyTorch, so that the corpus stays correct, runnable Triton.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME triage_corpus_interpret
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/triage/interpret/check_corpus.py
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(triage_corpus_interpret PROPERTIES
  ENVIRONMENT "TRITON_INTERPRET=1;CUDA_VISIBLE_DEVICES="
  TIMEOUT 600)
