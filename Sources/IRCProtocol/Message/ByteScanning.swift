/// Word-at-a-time byte scans for the hot paths of the parser and serializer.
enum ByteScanning {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is below `limit` (limit ≤ 128).
    @inline(__always)
    private static func hasByteBelow(_ word: UInt64, _ limit: UInt64) -> Bool {
        (word &- ones &* limit) & ~word & highBits != 0
    }

    @inline(__always)
    static func isForbidden(_ byte: UInt8) -> Bool {
        byte == 0 || byte == 0x0A || byte == 0x0D
    }

    /// Whether `bytes[start...]` contains NUL, CR or LF. Eight bytes at a time: a word is
    /// only examined byte by byte if it holds a byte below 0x0E (rare in text).
    @inline(__always)
    static func containsForbidden(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasByteBelow(word, 0x0E) {
                for offset in index..<(index + 8) where isForbidden(base[offset]) { return true }
            }
            index += 8
        }
        while index < count {
            if isForbidden(base[index]) { return true }
            index += 1
        }
        return false
    }

    /// Whether any byte of `word` is zero.
    @inline(__always)
    private static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highBits != 0
    }

    /// The index of the first space in `bytes[start..<end]`, or `end`.
    @inline(__always)
    static func firstSpace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard let base = bytes.baseAddress else { return end }
        let raw = UnsafeRawPointer(base)
        var index = start
        while index + 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasZeroByte(word ^ 0x2020_2020_2020_2020) { break }
            index += 8
        }
        while index < end && base[index] != 0x20 { index += 1 }
        return index
    }

    /// The index of the first byte at or below 0x20 (space or a control character) from
    /// `start`, or `bytes.count`.
    @inline(__always)
    static func firstSpaceOrControl(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasByteBelow(word, 0x21) { break }
            index += 8
        }
        while index < count && base[index] > 0x20 { index += 1 }
        return index
    }
}
