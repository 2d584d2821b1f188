import Foundation
import IRCProtocol
import OnTheMapService

/// Matches a query against students' names: first, last or full name, ignoring case and accents.
/// When nothing matches exactly, names that start with the query (3 letters or more) count.
struct NameMatcher {
    let folded: String

    init(query: String) {
        folded = Self.fold(query)
    }

    /// Case, accents and width removed, words separated by one space (dots count as spaces).
    static func fold(_ text: String) -> String {
        let clean = TextSanitizer.untrusted(text)
        // Plain ASCII needs no Unicode folding (most names); the result is the same either way.
        let lowered =
            clean.utf8.allSatisfy({ $0 < 0x80 })
            ? clean.lowercased()
            : clean.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return lowered.split(whereSeparator: { $0.isWhitespace || $0 == "." }).joined(separator: " ")
    }

    /// The live slots of `store` that match: exact first, last or full names; when there is none and
    /// the query has 3 letters or more, names whose full or last name starts with it. The query's
    /// key (``SearchKeys``) is compared with each record's folded names, byte for byte; exact names
    /// are looked for among the pins whose name hash matches, prefixes by reading every record.
    func matchingSlots(in store: PinStore) -> [Int] {
        guard !folded.isEmpty else { return [] }
        var key = SearchKeys.composed(folded)
        return key.withUTF8 { key in
            let exact = exactSlots(of: key, in: store)
            if !exact.isEmpty || folded.count < 3 { return exact }
            return store.withRecords { arena, starts in
                starts.indices.filter { slot in
                    guard starts[slot] != PinStore.tombstone else { return false }
                    var reader = RecordReader(arena: arena, start: Int(starts[slot]))
                    reader.skip()
                    let last = reader.next()
                    return Self.starts(reader.next(), with: key) || Self.starts(last, with: key)
                }
            }
        }
    }

    private func exactSlots(of key: UnsafeBufferPointer<UInt8>, in store: PinStore) -> [Int] {
        let hash = PinStore.nameHash(key)
        return store.withRecords { arena, starts in
            store.withNameHints { hints in
                var exact: [Int] = []
                for slot in hints.indices {
                    let hint = hints[slot]
                    guard hint & 0xFFFF == hash || hint >> 16 & 0xFFFF == hash || hint >> 32 & 0xFFFF == hash,
                        starts[slot] != PinStore.tombstone
                    else { continue }
                    var reader = RecordReader(arena: arena, start: Int(starts[slot]))
                    if Self.equal(key, reader.next()) || Self.equal(key, reader.next())
                        || Self.equal(key, reader.next())
                    {
                        exact.append(slot)
                    }
                }
                return exact
            }
        }
    }

    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// Whether `name` starts with `prefix` as a string does (whole characters): the bytes, and when
    /// a non-ASCII byte follows them (a combining mark may extend the last character), the strings.
    static func starts(_ name: UnsafeBufferPointer<UInt8>, with prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count >= prefix.count,
            prefix.isEmpty || memcmp(name.baseAddress!, prefix.baseAddress!, prefix.count) == 0
        else { return false }
        guard name.count > prefix.count, name[prefix.count] >= 0x80 else { return true }
        return String(decoding: name, as: UTF8.self).hasPrefix(String(decoding: prefix, as: UTF8.self))
    }
}
