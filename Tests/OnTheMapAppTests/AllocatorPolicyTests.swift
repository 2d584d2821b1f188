#if os(Linux)
    import CGlibcMalloc
    import Glibc
    import Testing

    @testable import OnTheMapApp

    /// The running bot's allocator policy: once a large buffer was freed, glibc's default serves the
    /// next large one from its heap, where its pages stay resident after it is freed; with the policy
    /// every buffer from 128 KiB up is mapped on its own (counted in `hblkhd`) and unmapped when freed.
    @Suite struct AllocatorPolicyTests {
        @Test func aLargeBufferIsMappedOnItsOwnEvenAfterALargerOneWasFreed() throws {
            AllocatorPolicy.apply()
            let larger = try #require(malloc(8 << 20))
            memset(larger, 1, 8 << 20)
            free(larger)
            let mappedBefore = mallinfo2().hblkhd
            let buffer = try #require(malloc(2 << 20))
            defer { free(buffer) }
            // Other tests of this process allocate meanwhile: the count only ever gains this buffer.
            #expect(mallinfo2().hblkhd >= mappedBefore + (2 << 20))
        }
    }
#endif
