# cmake -P: configures examples/game against the installed RadixSweep in PREFIX with only a
# C++ compiler, builds it and runs it. Fails on any step.
function(run step)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${BINARY_DIR}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  message("${output}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${step} failed (${status})")
  endif()
  set(output "${output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${BINARY_DIR})
file(MAKE_DIRECTORY ${BINARY_DIR})
# A sanitized RadixSweep (SANITIZE, e.g. address,undefined) needs its runtime in the game too.
set(link_flags)
if(SANITIZE)
  set(link_flags -D CMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
run(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
    -D CMAKE_BUILD_TYPE=Release -D CMAKE_CXX_COMPILER=${CXX_COMPILER}
    -D CMAKE_PREFIX_PATH=${PREFIX} ${link_flags})
run(build ${CMAKE_COMMAND} --build ${BINARY_DIR})
run(run ${BINARY_DIR}/bouncing-boxes)
if(NOT output MATCHES "all 10 frames agree with brute force")
  message(FATAL_ERROR "the game ran, but did not say that its pairs agree with brute force")
endif()
