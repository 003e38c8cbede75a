# cmake -P: compiles each public header installed under PREFIX/include on its own, with the
# C++ compiler alone (no CUDA or GL include paths): each must include what it uses.
file(GLOB_RECURSE headers RELATIVE ${PREFIX}/include ${PREFIX}/include/rsw/*.hpp)
if(NOT headers)
  message(FATAL_ERROR "no headers installed under ${PREFIX}/include/rsw")
endif()
file(MAKE_DIRECTORY ${BINARY_DIR})
set(failed "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER ${header} name)
  set(source ${BINARY_DIR}/${name}.cpp)
  file(WRITE ${source} "#include <${header}>\n")
  execute_process(
    COMMAND ${CXX_COMPILER} -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I${PREFIX}/include
            ${source}
    RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status EQUAL 0)
    message("ok: ${header}")
  else()
    message("${errors}")
    list(APPEND failed ${header})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "headers that do not compile alone: ${failed}")
endif()
