# cmake -DCLI=post-cli -DTEMPLATE=post-cli.1.in -DOUTPUT=post-cli.1 -DPROJECT_VERSION=x.y.z -P MakeManPage.cmake
# Fills the man page's COMMAND OPTIONS section from the CLI's own --help, command by command
# (the command list is read from `post-cli --help` too).
function(help_of out)
  execute_process(COMMAND ${CLI} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${ARGN} --help failed (${rc})")
  endif()
  string(REPLACE "${CLI}" "post-cli" text "${text}") # "Usage: /build/path/post-cli info ..."
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Help text as roff: backslashes escaped, lines that start with . or ' protected, '-' as \-.
function(as_roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(top)
string(REGEX MATCH "(SUBCOMMANDS|Subcommands):\n(([ ]+[a-z][^\n]*\n)+)" block "${top}")
string(REGEX MATCHALL "[^\n]+" lines "${CMAKE_MATCH_2}")
set(COMMAND_HELP "")
foreach(line IN LISTS lines)
  # "  info      Summarise a graph ...": the name is the first word after a short indent.
  if(NOT line MATCHES "^  ? ?([a-z][a-z-]*)( |$)")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  help_of(text ${name})
  as_roff(text "${text}")
  string(APPEND COMMAND_HELP ".SS ${name}\n.nf\n${text}.fi\n")
endforeach()
if(COMMAND_HELP STREQUAL "")
  message(FATAL_ERROR "no subcommands found in `${CLI} --help`")
endif()
string(TIMESTAMP MAN_DATE "%Y-%m-%d" UTC)
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
