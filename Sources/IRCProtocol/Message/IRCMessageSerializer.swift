/// Byte-level serializer behind `IRCMessage.serialized()` and `serializedChecked()`.
enum IRCMessageSerializer {
    /// Calls `body` with the UTF-8 bytes of `string` without copying native strings.
    @inline(__always)
    static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }

    @inline(__always)
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    @inline(__always)
    static func isTagKeyByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == 0x2D || byte == 0x2E || byte == 0x2F
    }

    @inline(__always)
    static func isForbidden(_ byte: UInt8) -> Bool {
        byte == 0 || byte == 0x0A || byte == 0x0D
    }

    /// Tag keys: an optional client-only `+`, then letters, digits, `-`, `.` and `/`.
    static func isValidTagKey(_ key: String) -> Bool {
        withBytes(key) { bytes in
            var index = 0
            if bytes.count > 0 && bytes[0] == 0x2B { index = 1 }
            guard index < bytes.count else { return false }
            while index < bytes.count {
                guard isTagKeyByte(bytes[index]) else { return false }
                index += 1
            }
            return true
        }
    }

    /// Sources are non-empty and contain no space, NUL, CR or LF.
    static func isValidSource(_ source: String) -> Bool {
        withBytes(source) { bytes in
            guard !bytes.isEmpty else { return false }
            var index = ByteScanning.firstSpaceOrControl(bytes)
            while index < bytes.count {
                if bytes[index] == 0x20 || isForbidden(bytes[index]) { return false }
                index = ByteScanning.firstSpaceOrControl(bytes, from: index + 1)
            }
            return true
        }
    }

    static func isValidCommand(_ command: String) -> Bool {
        withBytes(command) { bytes in !bytes.isEmpty && bytes.allSatisfy(isAlphanumeric) }
    }

    /// Whether a parameter must be written as trailing (empty, has a space, starts with `:`)
    /// and whether it contains NUL, CR or LF.
    @inline(__always)
    static func shape(_ bytes: UnsafeBufferPointer<UInt8>) -> (needsTrailing: Bool, hasForbidden: Bool) {
        guard let first = bytes.first else { return (true, false) }
        if first == 0x3A { return (true, ByteScanning.containsForbidden(bytes)) }
        var index = ByteScanning.firstSpaceOrControl(bytes)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 { return (true, ByteScanning.containsForbidden(bytes, from: index)) }
            if isForbidden(byte) { return (bytes[index...].contains(0x20), true) }
            index = ByteScanning.firstSpaceOrControl(bytes, from: index + 1)
        }
        return (false, false)
    }

    static func validate(_ message: IRCMessage) throws(IRCSerializationError) {
        guard isValidCommand(message.command) else { throw .invalidCommand }
        for key in message.tags.keys where !isValidTagKey(key) {
            throw .invalidTagKey(key)
        }
        if let source = message.source, !isValidSource(source) {
            throw .invalidSource
        }
        let last = message.parameters.count - 1
        for (index, parameter) in message.parameters.enumerated() {
            let (needsTrailing, hasForbidden) = withBytes(parameter, shape)
            if hasForbidden { throw .forbiddenCharacter(parameterIndex: index) }
            if index != last && needsTrailing { throw .invalidMiddleParameter(index: index) }
        }
    }

    static func serialize(_ message: IRCMessage) -> String {
        let parameters = message.parameters
        var capacity = max(message.command.utf8.count, 4) + 4
        for parameter in parameters { capacity += parameter.utf8.count + 2 }

        var tags: [(key: String, value: String)] = []
        if !message.tags.isEmpty {
            tags.reserveCapacity(message.tags.count)
            for (key, value) in message.tags where isValidTagKey(key) {
                tags.append((key, value))
                capacity += key.utf8.count + 2 * value.utf8.count + 2
            }
            if tags.count > 1 { tags.sort { $0.key < $1.key } }
            capacity += 2
        }
        var source: String?
        if let candidate = message.source, isValidSource(candidate) {
            source = candidate
            capacity += candidate.utf8.count + 2
        }

        return String(unsafeUninitializedCapacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var writer = ByteWriter(base: base)
            if !tags.isEmpty {
                writer.put(0x40)  // '@'
                for (offset, tag) in tags.enumerated() {
                    if offset > 0 { writer.put(0x3B) }  // ';'
                    writer.append(tag.key)
                    if tag.value.isEmpty { continue }
                    writer.put(0x3D)  // '='
                    writer.appendEscapedTagValue(tag.value)
                }
                writer.put(0x20)
            }
            if let source {
                writer.put(0x3A)
                writer.append(source)
                writer.put(0x20)
            }
            writer.appendCommand(message.command)
            for parameter in parameters {
                // Only the last parameter may be trailing: an invalid middle one ends the line.
                if writer.appendParameter(parameter) { break }
            }
            return writer.position
        }
    }
}

/// Writes bytes into a buffer whose capacity the caller has checked.
struct ByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    var position = 0

    init(base: UnsafeMutablePointer<UInt8>) {
        self.base = base
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        base[position] = byte
        position += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        (base + position).initialize(from: source, count: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func append(_ string: String) {
        IRCMessageSerializer.withBytes(string) { append($0) }
    }

    /// Escapes `;`, space, `\`, CR and LF; drops NUL.
    mutating func appendEscapedTagValue(_ value: String) {
        IRCMessageSerializer.withBytes(value) { bytes in
            let isClean = !bytes.contains { $0 == 0x3B || $0 == 0x20 || $0 == 0x5C || $0 <= 0x0D }
            if isClean {
                append(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case 0x3B:
                    put(0x5C)
                    put(0x3A)  // ';' → \:
                case 0x20:
                    put(0x5C)
                    put(0x73)  // ' ' → \s
                case 0x5C:
                    put(0x5C)
                    put(0x5C)  // '\' → \\
                case 0x0D:
                    put(0x5C)
                    put(0x72)  // CR → \r
                case 0x0A:
                    put(0x5C)
                    put(0x6E)  // LF → \n
                case 0x00: break
                default: put(byte)
                }
            }
        }
    }

    /// Writes the ASCII letters and digits of the command, or `NOOP` if there are none.
    mutating func appendCommand(_ command: String) {
        let start = position
        IRCMessageSerializer.withBytes(command) { bytes in
            for byte in bytes where IRCMessageSerializer.isAlphanumeric(byte) { put(byte) }
        }
        if position == start {
            for byte in "NOOP".utf8 { put(byte) }
        }
    }

    /// Writes ` param` or ` :param`, with NUL/CR/LF replaced by spaces; returns whether the
    /// parameter had to be written as trailing.
    mutating func appendParameter(_ parameter: String) -> Bool {
        IRCMessageSerializer.withBytes(parameter) { bytes -> Bool in
            let (needsTrailing, hasForbidden) = IRCMessageSerializer.shape(bytes)
            put(0x20)
            if needsTrailing { put(0x3A) }
            if hasForbidden {
                for byte in bytes { put(IRCMessageSerializer.isForbidden(byte) ? 0x20 : byte) }
            } else {
                append(bytes)
            }
            return needsTrailing
        }
    }
}
