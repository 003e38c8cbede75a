# rsw_target_defaults(<target>): the warnings and definitions every RadixSweep target gets.
function(rsw_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  # GCC 12 flags designated initialisers that leave members to their defaults, which is how
  # our options structs are meant to be used ({.backend = Backend::Auto}).
  set(host_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                    -Wno-missing-field-initializers)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${host_warnings}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(RSW_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  # __FILE__ relative to the source tree, so error messages read engine/src/..., not /home/...
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>)
  if(RSW_HAVE_CUDA)
    target_compile_definitions(${target} PRIVATE RSW_HAVE_CUDA=1)
  endif()
endfunction()
