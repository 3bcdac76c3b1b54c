# Fails when the committed capability doc differs from what `tlconform capabilities --markdown` makes.
execute_process(COMMAND "${TLCONFORM}" capabilities --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tlconform capabilities --markdown failed (${status})")
endif()
file(READ "${DOC}" committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${DOC} is stale: regenerate it with\n  build/bin/tlconform capabilities --markdown > docs/backends/tinygrad.md\n--- generated ---\n${generated}")
endif()
