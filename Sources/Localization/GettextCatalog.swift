import Foundation

/// The translations of a compiled gettext catalogue (a `.mo` file), read without libintl.
///
/// The file is a header of 32-bit numbers in the byte order its magic number shows (0x950412de
/// read either way round), then two tables of (length, offset) pairs, one for the original
/// strings and one for their translations, each string UTF-8 and NUL-terminated. The entry with
/// the empty original (the catalogue's own header) is skipped; a plural entry is kept under its
/// singular original with its first form.
public struct GettextCatalog: Sendable {
    /// Each original string (msgid) with its translation (msgstr).
    public let translations: [String: String]

    public init(translations: [String: String]) {
        self.translations = translations
    }

    /// Reads the catalogue at `url`; throws ``GettextCatalogError`` when it cannot be read or is
    /// not a well-formed catalogue. `keeping` chooses the originals kept (all by default), so a
    /// caller that needs a few pays only for those.
    public init(contentsOf url: URL, keeping: (String) -> Bool = { _ in true }) throws(GettextCatalogError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw GettextCatalogError(file: url.path, problem: "cannot be read (\(error.localizedDescription))")
        }
        do {
            try self.init(data: data, keeping: keeping)
        } catch {
            throw GettextCatalogError(file: url.path, problem: error.problem)
        }
    }

    /// Reads a catalogue from its bytes; throws ``GettextCatalogError`` (without a file name) when
    /// they are not a well-formed catalogue.
    public init(data: Data, keeping: (String) -> Bool = { _ in true }) throws(GettextCatalogError) {
        let bytes = [UInt8](data)
        func fail(_ problem: String) -> GettextCatalogError { GettextCatalogError(file: nil, problem: problem) }
        guard bytes.count >= 20 else { throw fail("is too short to be a gettext catalogue (\(bytes.count) bytes)") }
        let bigEndian: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xde, 0x12, 0x04, 0x95): bigEndian = false
        case (0x95, 0x04, 0x12, 0xde): bigEndian = true
        default: throw fail("is not a gettext catalogue (no magic number 0x950412de)")
        }
        func word(at offset: Int) throws(GettextCatalogError) -> Int {
            guard offset >= 0, offset <= bytes.count - 4 else {
                throw fail("ends inside its tables (offset \(offset) of \(bytes.count) bytes)")
            }
            let b = (
                UInt32(bytes[offset]), UInt32(bytes[offset + 1]), UInt32(bytes[offset + 2]),
                UInt32(bytes[offset + 3])
            )
            return Int(bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0)
        }
        let revision = try word(at: 4)
        guard revision >> 16 <= 1 else {
            throw fail("has a format revision this reader does not know (\(revision >> 16))")
        }
        let count = try word(at: 8)
        let originals = try word(at: 12)
        let translated = try word(at: 16)
        guard count <= bytes.count / 16 else {
            throw fail("claims \(count) strings, more than its \(bytes.count) bytes hold")
        }
        func string(table: Int, index: Int) throws(GettextCatalogError) -> String {
            let length = try word(at: table + 8 * index)
            let start = try word(at: table + 8 * index + 4)
            guard start <= bytes.count, length <= bytes.count - start else {
                throw fail("has a string outside the file (at \(start), \(length) bytes)")
            }
            guard let text = String(validating: bytes[start..<start + length], as: UTF8.self) else {
                throw fail("has a string that is not UTF-8 (at \(start))")
            }
            return text
        }
        var translations: [String: String] = [:]
        for index in 0..<count {
            let original = try string(table: originals, index: index)
            // A plural entry is "singular\0plural"; its translation "form 0\0form 1…".
            let key = String(original.prefix { $0 != "\0" })
            guard !key.isEmpty, keeping(key) else { continue }
            let translation = try string(table: translated, index: index)
            let first = String(translation.prefix { $0 != "\0" })
            if !first.isEmpty { translations[key] = first }
        }
        self.translations = translations
    }

    /// The translation of `original`, or nil when the catalogue has none.
    public subscript(original: String) -> String? { translations[original] }
}

/// A gettext catalogue that cannot be read, with what is wrong in a few words.
public struct GettextCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's path, when it was read from one.
    public var file: String?
    /// What is wrong, as the end of a sentence that starts with the file ("is not a gettext catalogue").
    public var problem: String

    public init(file: String?, problem: String) {
        self.file = file
        self.problem = problem
    }

    public var description: String { "\(file ?? "the catalogue") \(problem)" }
}
