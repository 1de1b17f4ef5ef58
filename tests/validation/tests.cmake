# One test per fidelity case, discovered from cases.yaml when the test binary is built: a case
# added to or edited in the file rebuilds the binary, so ctest runs it without a reconfigure.
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/validation/validation_cases_test.cpp APPEND PROPERTY
             OBJECT_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/validation/cases.yaml)
