# cmake -DHEAD=a -DFILE=b -P prepend.cmake: b = a's text, then b's (a link's POST_BUILD step: the link rewrites b).
file(READ ${HEAD} head)
file(READ ${FILE} body)
file(WRITE ${FILE} "${head}${body}")
