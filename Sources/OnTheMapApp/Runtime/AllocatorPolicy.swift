#if os(Linux)
    import CGlibcMalloc
    import Glibc
#endif

/// How the running bot asks glibc's allocator to hold memory, set once at start.
///
/// By default glibc serves a freed large buffer's size from its heap next time (its "dynamic mmap
/// threshold" rises to the largest buffer freed, up to 32 MiB), so every large transient buffer —
/// the whole class as JSON, the map's picture, the arrays a nearest-neighbour index is built from,
/// the doubled arrays of a growing pin store — leaves its pages resident afterwards; and it keeps up
/// to eight heaps per core, one per thread that met contention. With the threshold fixed at
/// 128 KiB as the bot starts, a buffer from that size up that the heap has no free room for is
/// mapped on its own and given back when freed (an array's untouched spare capacity is never
/// resident), and two heaps per process (or one per core on a larger machine) leave less free
/// memory spread over heaps. Measured with `scripts/bench-scale` at
/// 100,000 pins (BENCHMARKS.md, class size): the peak fell from 106.7 to 98.9 MiB, with no change
/// in the command round trips. An operator's own `MALLOC_MMAP_THRESHOLD_` or `MALLOC_ARENA_MAX` in
/// the environment is left as set.
enum AllocatorPolicy {
    static let mmapThreshold: Int32 = 128 * 1024

    static func apply() {
        #if os(Linux)
            if getenv("MALLOC_MMAP_THRESHOLD_") == nil {
                _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
            }
            if getenv("MALLOC_ARENA_MAX") == nil {
                _ = mallopt(M_ARENA_MAX, Int32(max(2, min(64, sysconf(Int32(_SC_NPROCESSORS_ONLN))))))
            }
        #endif
    }
}
