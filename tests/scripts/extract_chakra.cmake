# Extracts ../shared/data/traces/chakra/json_trace.tar.gz into OUT (a set-up step of the
# tests: fixtures/extract-chakra). Says SKIPPED when the shared data is absent.
# cmake -DARCHIVE=... -DOUT=... -P extract_chakra.cmake
if(NOT EXISTS "${ARCHIVE}")
  message("SKIPPED: ${ARCHIVE} is absent")
  return()
endif()
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf "${ARCHIVE}" WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cannot extract ${ARCHIVE}: ${result}")
endif()
