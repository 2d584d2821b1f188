#if os(Linux)
    import CGlibcMalloc
#endif

/// Hands the C allocator's free pages back to the system after the map did a large piece of work
/// (the first load of the class, a nearest-neighbour index over thousands of pins).
///
/// Both leave freed buffers behind (the arrays outgrown while loading, the index's temporary
/// arrays) in the middle of glibc's heaps, where they stay resident until reused; at 100,000 pins
/// that is 5–10 MiB of the bot's resident memory (BENCHMARKS.md, class size). `malloc_trim`
/// releases them; it takes about a millisecond, so it runs only after such work.
enum FreePages {
    static func release() {
        #if os(Linux)
            _ = malloc_trim(0)
        #endif
    }
}
