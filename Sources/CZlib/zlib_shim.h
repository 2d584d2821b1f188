// zlib (Debian's zlib1g-dev): the web map compresses its answers with gzip
// (OnTheMapApp/Web/Map/HTTPCompression.swift).
#include <zlib.h>
