// glibc's allocator controls (<malloc.h>), which Swift's Glibc module does not export:
// the class map calls malloc_trim after large pieces of work (ClassKit/Pins/FreePages.swift), and the
// bot sets its allocator's policy at start (OnTheMapApp/Runtime/AllocatorPolicy.swift).
#include <malloc.h>
