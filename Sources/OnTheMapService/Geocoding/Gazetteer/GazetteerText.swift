#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a gazetteer file, which names and keys are read from in place. A plain file is
/// memory-mapped read-only, so only the pages lookups touch are resident (and the kernel may drop
/// them again); a file that cannot be mapped as is is copied into memory.
final class GazetteerText: @unchecked Sendable {
    // Immutable after init; the memory is never written again, so sharing between threads is safe.
    let base: UnsafePointer<UInt8>
    let count: Int
    private let isMapped: Bool

    /// Copies `bytes`, appending the final newline the parser relies on when it is missing.
    init(copying bytes: [UInt8]) {
        let needsNewline = bytes.last != 0x0A
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + (needsNewline ? 1 : 0))
        bytes.withUnsafeBufferPointer { source in
            if let from = source.baseAddress { memory.update(from: from, count: source.count) }
        }
        if needsNewline { memory[bytes.count] = 0x0A }
        base = UnsafePointer(memory)
        count = bytes.count + (needsNewline ? 1 : 0)
        isMapped = false
    }

    /// Maps the file at `path`; nil when it cannot be mapped as is (empty, or not ending in a
    /// newline), in which case the caller reads it instead.
    init?(mapping path: String) throws(GazetteerError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        let size = Int(status.st_size)
        guard size > 0 else { return nil }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw .unreadable("\(path): cannot map the file (\(String(cString: strerror(errno))))")
        }
        let bytes = UnsafePointer(address.assumingMemoryBound(to: UInt8.self))
        guard bytes[size - 1] == 0x0A else {
            munmap(address, size)
            return nil
        }
        base = bytes
        count = size
        isMapped = true
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutablePointer(mutating: base).deallocate()
        }
    }

    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Lets go of the mapped pages before `offset` (whole pages only): they stay in the page
    /// cache and come back on the next access. Called while parsing, so that reading the whole
    /// file once does not leave all of it resident. Does nothing for data held in memory.
    func releasePages(before offset: Int) {
        guard isMapped else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = min(offset, count) / pageSize * pageSize
        guard length > 0 else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), length, MADV_DONTNEED)
    }
}
