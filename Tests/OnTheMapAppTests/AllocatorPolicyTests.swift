#if os(Linux)
    import CGlibcMalloc
    import Glibc
    import Testing

    @testable import OnTheMapApp

    /// The running bot's allocator policy, in a fresh process as the bot sets it at start: once a
    /// large buffer was freed, glibc's default serves the next large one from its heap, where its
    /// pages stay resident after it is freed; with the policy a buffer from 128 KiB up is mapped on
    /// its own (counted in `hblkhd`) and unmapped when freed.
    @Suite struct AllocatorPolicyTests {
        @Test func aLargeBufferIsMappedOnItsOwnEvenAfterALargerOneWasFreed() async {
            await #expect(processExitsWith: .success) {
                AllocatorPolicy.apply()
                guard let larger = malloc(8 << 20) else { exit(2) }
                memset(larger, 1, 8 << 20)
                free(larger)
                let mappedBefore = mallinfo2().hblkhd
                guard let buffer = malloc(2 << 20) else { exit(2) }
                let mapped = mallinfo2().hblkhd >= mappedBefore + (2 << 20)
                free(buffer)
                exit(mapped ? 0 : 1)
            }
        }
    }
#endif
