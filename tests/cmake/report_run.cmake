# The HTML run reports in headless Chromium (tests/browser/report_browser.py,
# through chromedriver): no console errors, no request but the file itself,
# the roofline and speedup charts with their points and bars, markup from a
# run kept as text. Its screenshots land in BUILD/report-screenshots
# (docs/report-optimize.png and docs/report-bench.png are copies of them).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME report_browser
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/report_browser.py
                 $<TARGET_FILE:tritondx> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/report-screenshots
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(report_browser PROPERTIES TIMEOUT 300)
