# cmake -DDIR=<build dir> -DNAME=posenc-lm-simd-mt -DHEAD=<threads-worker-pre.js> -P pthread-files.cmake: the threaded
# module's link step's POST_BUILD (the link rewrites both files each time).
#  - <NAME>.worker.js gets HEAD's text in front (what it needs to load under Node);
#  - in <NAME>.mjs, the Workers' script is always asked of locateFile: the glue's fallback `new Worker(new URL(...))`
#    (never taken: the library always passes locateFile) is a pattern bundlers take for a Worker to bundle, glue and all.
file(READ ${HEAD} head)
file(READ ${DIR}/${NAME}.worker.js body)
file(WRITE ${DIR}/${NAME}.worker.js "${head}${body}")
file(READ ${DIR}/${NAME}.mjs glue)
set(fallback "new Worker(new URL(\"${NAME}.worker.js\",import.meta.url))")
string(FIND "${glue}" "${fallback}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${NAME}.mjs: no `${fallback}` to replace (a new Emscripten?)")
endif()
string(REPLACE "${fallback}" "new Worker(locateFile(\"${NAME}.worker.js\"))" glue "${glue}")
file(WRITE ${DIR}/${NAME}.mjs "${glue}")
