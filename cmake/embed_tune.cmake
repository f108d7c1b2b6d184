# cmake -DOUT=<file.c> -DTABLES="name1=path1;name2=path2" -P embed_tune.cmake
# Writes the shipped tuning tables as C strings (const char
# mns_tune_table_<name>[]), so the library never looks for them at run time.
set(body "/* Generated from the tune/ tables by cmake/embed_tune.cmake: do not edit. */\n")
foreach(pair ${TABLES})
  string(REPLACE "=" ";" kv "${pair}")
  list(GET kv 0 name)
  list(GET kv 1 path)
  file(STRINGS "${path}" lines)
  string(APPEND body "const char mns_tune_table_${name}[] =\n")
  foreach(line IN LISTS lines)
    string(REPLACE "\\" "\\\\" line "${line}")
    string(REPLACE "\"" "\\\"" line "${line}")
    string(APPEND body "    \"${line}\\n\"\n")
  endforeach()
  string(APPEND body "    \"\";\n")
endforeach()
file(WRITE "${OUT}" "${body}")
