# The committed IR fixtures must still be what tests/data/ir/gen.py makes of
# their kernels with this Triton: regenerate two cases and compare.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME ir_fixtures_regen
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/ir/gen.py --check
                 add_v4 dot_fp16_wgmma_s3
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(ir_fixtures_regen PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=" TIMEOUT 600)
