# The digest of shmcoll's sources, as a C header (src/mpi/version.c): run at build time,
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<header> -P source_digest.cmake
# over every .c and .h under src/ and include/, by path and content. The header is rewritten only
# when the digest changed, so an unchanged tree recompiles nothing.
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/src/*.c ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/include/*.h)
list(SORT files)
set(listing "")
foreach(f IN LISTS files)
  file(SHA256 ${SOURCE_DIR}/${f} h)
  string(APPEND listing "${f} ${h}\n")
endforeach()
string(SHA256 digest "${listing}")
string(SUBSTRING ${digest} 0 16 digest)
set(text "#define SHMCOLL_SOURCE_DIGEST \"${digest}\"\n")
set(old "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
