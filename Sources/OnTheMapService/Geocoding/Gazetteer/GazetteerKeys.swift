import Foundation

/// Key-table operations of the store: binary search, prefix ranges, spelling-tolerant scans
/// and posting lists. Every function takes the base address of `text`, obtained once per query.
extension GazetteerStore {
    /// Compares key `key` with `query`: negative when the key sorts first, 0 when equal.
    @inline(__always)
    func compare(key: Int, with query: UnsafeBufferPointer<UInt8>, text: UnsafePointer<UInt8>) -> Int {
        var i = Int(keyStarts[key])
        var j = 0
        while true {
            let byte = text[i]
            let keyEnded = byte == 0x09
            let queryEnded = j == query.count
            if keyEnded || queryEnded {
                if keyEnded && queryEnded { return 0 }
                return keyEnded ? -1 : 1
            }
            let queryByte = query[j]
            if byte != queryByte { return byte < queryByte ? -1 : 1 }
            i += 1
            j += 1
        }
    }

    /// The index of the first key not sorting before `query`.
    func lowerBound(_ query: UnsafeBufferPointer<UInt8>, text: UnsafePointer<UInt8>) -> Int {
        var low = 0
        var high = keyStarts.count
        while low < high {
            let middle = (low + high) >> 1
            if compare(key: middle, with: query, text: text) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The index of the key equal to `query`, if any.
    func exactKey(_ query: UnsafeBufferPointer<UInt8>, text: UnsafePointer<UInt8>) -> Int? {
        guard !query.isEmpty else { return nil }
        let index = lowerBound(query, text: text)
        guard index < keyStarts.count, compare(key: index, with: query, text: text) == 0 else { return nil }
        return index
    }

    /// True when key `key` starts with `prefix`.
    func key(_ key: Int, hasPrefix prefix: UnsafeBufferPointer<UInt8>, text: UnsafePointer<UInt8>) -> Bool {
        let start = Int(keyStarts[key])
        for j in 0..<prefix.count {
            let byte = text[start + j]
            if byte == 0x09 || byte != prefix[j] { return false }
        }
        return true
    }

    /// The keys that start with `prefix`, at most `maximum` of them, in key order.
    func keys(withPrefix prefix: UnsafeBufferPointer<UInt8>, maximum: Int, text: UnsafePointer<UInt8>)
        -> Range<Int>
    {
        let first = lowerBound(prefix, text: text)
        var last = first
        while last < keyStarts.count && last - first < maximum && key(last, hasPrefix: prefix, text: text) {
            last += 1
        }
        return first..<last
    }

    /// The number of words key `key` has after its first `offset` bytes (0 when the key ends
    /// in the word the offset falls in).
    func wordCount(ofKey key: Int, after offset: Int, text: UnsafePointer<UInt8>) -> Int {
        var i = Int(keyStarts[key]) + offset
        var words = 0
        while text[i] != 0x09 {
            if text[i] == 0x20 { words += 1 }
            i += 1
        }
        return words
    }

    /// The byte count of key `key`.
    @inline(__always)
    func keyLength(_ key: Int, text: UnsafePointer<UInt8>) -> Int {
        let start = Int(keyStarts[key])
        var end = start
        while text[end] != 0x09 { end += 1 }
        return end - start
    }

    /// The one script key `key` is written in (see `GazetteerScript`), nil when it mixes scripts.
    func script(ofKey key: Int, text: UnsafePointer<UInt8>) -> Int? {
        GazetteerScript.script(
            ofKey: UnsafeBufferPointer(start: text + Int(keyStarts[key]), count: keyLength(key, text: text)))
    }

    /// Appends the posting list of key `key` (population order, largest first).
    func appendPostings(ofKey key: Int, to postings: inout [GazetteerPosting], text: UnsafePointer<UInt8>) {
        var i = Int(keyStarts[key])
        while text[i] != 0x09 { i += 1 }
        i += 1
        let placeCount = populations.count
        var value = 0
        var digits = 0
        var flag = GazetteerPosting.Flag.name
        while true {
            let byte = text[i]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value * 10 + Int(byte - 48)
                digits += 1
                if digits > 9 {
                    digits = 0
                    value = 0
                }  // never a valid id: ignore
            case UInt8(ascii: "a"): flag = .alternate
            case UInt8(ascii: "c"): flag = .code
            case UInt8(ascii: "q"): flag = .qualifierOnly
            default:
                if digits > 0 && value < placeCount {
                    postings.append(GazetteerPosting(place: Int32(value), flag: flag))
                }
                value = 0
                digits = 0
                flag = .name
                if byte != UInt8(ascii: ",") { return }
            }
            i += 1
        }
    }

    /// Keys within a bounded Damerau-Levenshtein (optimal string alignment) distance of
    /// `query`, among the keys sharing its first byte whose length differs by at most
    /// `maximumDistance` and whose second or third byte matches the query's second or third.
    /// Calls `found(key, distance)` for each. Not a scan of every key: only the slice of keys
    /// with the query's first byte, found by binary search.
    func forEachKey(
        near query: UnsafeBufferPointer<UInt8>, maximumDistance: Int, text: UnsafePointer<UInt8>,
        _ found: (Int, Int) -> Void
    ) {
        guard let first = query.first, maximumDistance > 0 else { return }
        var lowByte = first
        let low = withUnsafePointer(to: &lowByte) {
            lowerBound(UnsafeBufferPointer(start: $0, count: 1), text: text)
        }
        var high = keyStarts.count
        if first < 0xFF {
            var highByte = first + 1
            high = withUnsafePointer(to: &highByte) {
                lowerBound(UnsafeBufferPointer(start: $0, count: 1), text: text)
            }
        }
        let width = query.count + 1
        var rows = [Int](repeating: 0, count: width * 3)
        rows.withUnsafeMutableBufferPointer { rows in
            for key in low..<high {
                let cappedLength = Int(keyLengths[key])
                guard abs(cappedLength - query.count) <= maximumDistance else { continue }
                let start = Int(keyStarts[key])
                if query.count >= 3 && cappedLength >= 3 {
                    // Cheap filter, exact for one edit after the first byte: the second or third
                    // bytes must line up one way or another.
                    let second = text[start + 1]
                    let third = text[start + 2]
                    guard second == query[1] || second == query[2] || third == query[1] || third == query[2]
                    else { continue }
                }
                let length = cappedLength < 255 ? cappedLength : keyLength(key, text: text)
                let distance = boundedDistance(
                    UnsafeBufferPointer(start: text + start, count: length), query, maximumDistance, rows)
                if distance <= maximumDistance { found(key, distance) }
            }
        }
    }
}

/// Optimal-string-alignment distance between `a` and `b`, or `bound + 1` as soon as it must
/// exceed `bound`. `rows` holds three rows of `b.count + 1` integers of scratch space.
func boundedDistance(
    _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ bound: Int,
    _ rows: UnsafeMutableBufferPointer<Int>
) -> Int {
    let width = b.count + 1
    var previous2 = 0
    var previous = width
    var current = 2 * width
    for j in 0..<width { rows[previous + j] = j }
    if a.isEmpty { return min(b.count, bound + 1) }
    for i in 1...a.count {
        rows[current] = i
        var rowMinimum = i
        if width > 1 {
            for j in 1..<width {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(
                    rows[previous + j] + 1, rows[current + j - 1] + 1, rows[previous + j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    value = min(value, rows[previous2 + j - 2] + 1)
                }
                rows[current + j] = value
                rowMinimum = min(rowMinimum, value)
            }
        }
        if rowMinimum > bound { return bound + 1 }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return min(rows[previous + b.count], bound + 1)
}
