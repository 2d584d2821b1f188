// glibc's allocator controls (<malloc.h>), which Swift's Glibc module does not export:
// the class map calls malloc_trim after large pieces of work (OnTheMapPlugins/Shared/FreePages.swift).
#include <malloc.h>
