/// Byte-level parser behind `IRCMessage(parsing:)`.
enum IRCMessageParser {
    static let space: UInt8 = 0x20
    static let colon: UInt8 = 0x3A
    static let at: UInt8 = 0x40
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let backslash: UInt8 = 0x5C

    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>,
        maxLineBytes: Int
    ) -> Result<IRCMessage, IRCParseError> {
        let count = bytes.count
        if count == 0 { return .failure(.empty) }
        if ByteScanning.containsForbidden(bytes) { return .failure(.forbiddenCharacter) }

        var index = 0
        var tags: [String: String] = [:]
        if bytes[0] == at {
            let end = ByteScanning.firstSpace(bytes, from: 1, to: count)
            // The tags section counts its trailing space.
            if end + 1 > IRCMessage.maxTagsBytes { return .failure(.tagsTooLong) }
            parseTags(bytes, from: 1, to: end, into: &tags)
            index = end
            while index < count && bytes[index] == space { index += 1 }
        }

        // The body plus the CRLF that terminated it must fit.
        if count - index + 2 > maxLineBytes { return .failure(.lineTooLong) }

        var source: String?
        if index < count && bytes[index] == colon {
            let start = index + 1
            let end = ByteScanning.firstSpace(bytes, from: start, to: count)
            if end == start { return .failure(.invalidSource) }
            source = string(bytes, start, end)
            index = end
            while index < count && bytes[index] == space { index += 1 }
        }

        let commandStart = index
        index = ByteScanning.firstSpace(bytes, from: index, to: count)
        if index == commandStart { return .failure(.missingCommand) }
        guard let command = parseCommand(bytes, commandStart, index) else {
            return .failure(.invalidCommand)
        }

        var parameters: [String] = []
        parameters.reserveCapacity(countParameters(bytes, from: index))
        while true {
            while index < count && bytes[index] == space { index += 1 }
            if index >= count { break }
            if bytes[index] == colon {
                parameters.append(string(bytes, index + 1, count))
                break
            }
            let start = index
            index = ByteScanning.firstSpace(bytes, from: index, to: count)
            parameters.append(string(bytes, start, index))
        }
        return .success(
            IRCMessage(tags: tags, source: source, command: command, parameters: parameters)
        )
    }

    /// The number of parameters starting at `start` (scans only up to the trailing parameter).
    @inline(__always)
    static func countParameters(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let count = bytes.count
        var index = start
        var parameters = 0
        while true {
            while index < count && bytes[index] == space { index += 1 }
            if index >= count { return parameters }
            parameters += 1
            if bytes[index] == colon { return parameters }
            index = ByteScanning.firstSpace(bytes, from: index, to: count)
        }
    }

    /// Letters only (uppercased) or exactly three digits.
    @inline(__always)
    static func parseCommand(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        let first = bytes[start]
        if first >= 0x30 && first <= 0x39 {
            guard end - start == 3 else { return nil }
            for i in start..<end where !(bytes[i] >= 0x30 && bytes[i] <= 0x39) { return nil }
            return string(bytes, start, end)
        }
        var hasLower = false
        for i in start..<end {
            let byte = bytes[i]
            if byte >= 0x61 && byte <= 0x7A {
                hasLower = true
            } else if !(byte >= 0x41 && byte <= 0x5A) {
                return nil
            }
        }
        if !hasLower { return string(bytes, start, end) }
        return String(
            unsafeUninitializedCapacity: end - start,
            initializingUTF8With: { out in
                for i in start..<end {
                    let byte = bytes[i]
                    out[i - start] = (byte >= 0x61 && byte <= 0x7A) ? byte - 0x20 : byte
                }
                return end - start
            }
        )
    }

    static func parseTags(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        into tags: inout [String: String]
    ) {
        var tagCount = 1
        for index in start..<end where bytes[index] == semicolon { tagCount += 1 }
        tags.reserveCapacity(tagCount)
        var index = start
        while index < end {
            let keyStart = index
            while index < end && bytes[index] != semicolon && bytes[index] != equals { index += 1 }
            let keyEnd = index
            var value = ""
            if index < end && bytes[index] == equals {
                index += 1
                let valueStart = index
                var hasEscape = false
                while index < end && bytes[index] != semicolon {
                    if bytes[index] == backslash { hasEscape = true }
                    index += 1
                }
                value =
                    hasEscape
                    ? unescapeTagValue(bytes, valueStart, index)
                    : string(bytes, valueStart, index)
            }
            if keyEnd > keyStart {
                tags[string(bytes, keyStart, keyEnd)] = value
            }
            index += 1  // skip ';'
        }
    }

    /// `\:` → `;`, `\s` → space, `\\` → `\`, `\r` → CR, `\n` → LF; any other escaped character
    /// stands for itself and a lone trailing backslash is dropped.
    static func unescapeTagValue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte != backslash {
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < end else { break }
            switch bytes[index] {
            case 0x3A: out.append(semicolon)  // ':'
            case 0x73: out.append(space)  // 's'
            case 0x72: out.append(0x0D)  // 'r'
            case 0x6E: out.append(0x0A)  // 'n'
            default: out.append(bytes[index])
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
