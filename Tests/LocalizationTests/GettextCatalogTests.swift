import Foundation
import Localization
import Testing

/// The `.mo` reader against catalogues laid out byte by byte here, in both byte orders, against
/// broken ones, and against an installed iso-codes catalogue.
@Suite struct GettextCatalogTests {
    /// A `.mo` file holding `entries` (original, translation), as msgfmt lays it out: the header,
    /// the two tables of (length, offset), then the strings, each NUL-terminated.
    static func moFile(_ entries: [(String, String)], bigEndian: Bool, revision: UInt32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        func word(_ value: UInt32) {
            let ordered = bigEndian ? value.bigEndian : value.littleEndian
            withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
        }
        let count = UInt32(entries.count)
        let originals: UInt32 = 28
        let translations = originals + 8 * count
        var strings = translations + 8 * count
        word(0x9504_12de)
        word(revision)
        word(count)
        word(originals)
        word(translations)
        word(0)  // no hash table
        word(0)
        var text: [UInt8] = []
        var tables: ([(UInt32, UInt32)], [(UInt32, UInt32)]) = ([], [])
        for (original, _) in entries {
            tables.0.append((UInt32(original.utf8.count), strings))
            text += Array(original.utf8) + [0]
            strings += UInt32(original.utf8.count) + 1
        }
        for (_, translation) in entries {
            tables.1.append((UInt32(translation.utf8.count), strings))
            text += Array(translation.utf8) + [0]
            strings += UInt32(translation.utf8.count) + 1
        }
        for (length, offset) in tables.0 + tables.1 {
            word(length)
            word(offset)
        }
        return bytes + text
    }

    static let entries = [
        ("", "Content-Type: text/plain; charset=UTF-8\n"),
        ("Bayern", "Bavière"),
        ("Germany", "Allemagne"),
        ("Japan", "日本"),
        ("one pin\0%d pins", "une épingle\0%d épingles"),
    ]

    /// Both byte orders give the same translations; the catalogue's own header is not one, and a
    /// plural entry is kept under its singular with its first form.
    @Test(arguments: [false, true]) func readsEitherByteOrder(bigEndian: Bool) throws {
        let catalogue = try GettextCatalog(data: Data(Self.moFile(Self.entries, bigEndian: bigEndian)))
        #expect(
            catalogue.translations == [
                "Bayern": "Bavière", "Germany": "Allemagne", "Japan": "日本", "one pin": "une épingle",
            ])
        #expect(catalogue["Germany"] == "Allemagne")
        #expect(catalogue["France"] == nil)
    }

    /// `keeping` keeps only the originals it chooses.
    @Test func keepsOnlyTheOriginalsAskedFor() throws {
        let catalogue = try GettextCatalog(
            data: Data(Self.moFile(Self.entries, bigEndian: false)), keeping: { $0 == "Japan" })
        #expect(catalogue.translations == ["Japan": "日本"])
    }

    /// An empty catalogue (msgfmt of a file with only its header) has no translations.
    @Test func anEmptyCatalogueHasNoTranslations() throws {
        #expect(try GettextCatalog(data: Data(Self.moFile([], bigEndian: true))).translations.isEmpty)
    }

    /// Each kind of broken file is refused with what is wrong, never read in part.
    @Test func brokenFilesAreRefused() throws {
        let good = Self.moFile(Self.entries, bigEndian: false)
        func problem(_ bytes: [UInt8]) -> String? {
            do {
                _ = try GettextCatalog(data: Data(bytes))
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem([0xde, 0x12]) == "is too short to be a gettext catalogue (2 bytes)")
        #expect(problem(Array("not a catalogue at all, just text".utf8))?.contains("no magic number") == true)
        #expect(
            problem(Self.moFile(Self.entries, bigEndian: false, revision: 2 << 16))
                == "has a format revision this reader does not know (2)")
        // Cut inside the strings: the last translation runs past the end.
        #expect(problem(Array(good.dropLast(5)))?.hasPrefix("has a string outside the file") == true)
        // Shorter than the tables its count calls for.
        #expect(problem(Array(good.prefix(40))) == "claims 5 strings, more than its 40 bytes hold")
        // A table placed past the end.
        var misplaced = good
        misplaced.replaceSubrange(12..<16, with: [0x00, 0x00, 0xff, 0x7f])
        #expect(problem(misplaced)?.hasPrefix("ends inside its tables") == true)
        // A byte that is not UTF-8 in a translation.
        var latin1 = good
        let allemagne = Array("Allemagne".utf8)
        let at = try #require(latin1.indices.first { latin1[$0...].starts(with: allemagne) })
        latin1[at] = 0xe9
        #expect(problem(latin1) == "has a string that is not UTF-8 (at \(at))")
    }

    /// A missing file is named.
    @Test func aMissingFileIsNamed() {
        let url = URL(fileURLWithPath: "/nowhere/fr/LC_MESSAGES/iso_3166-1.mo")
        let error = #expect(throws: GettextCatalogError.self) { try GettextCatalog(contentsOf: url) }
        #expect(error?.file == url.path)
        #expect(error?.description.hasPrefix("/nowhere/fr/LC_MESSAGES/iso_3166-1.mo cannot be read") == true)
    }

    /// The catalogue Debian's iso-codes installs reads: the countries in French.
    @Test func readsAnInstalledIsoCodesCatalogue() throws {
        let catalogue = try GettextCatalog(
            contentsOf: URL(fileURLWithPath: "/usr/share/locale/fr/LC_MESSAGES/iso_3166-1.mo"))
        #expect(catalogue["Germany"] == "Allemagne")
        #expect(catalogue["Japan"] == "Japon")
        #expect(catalogue.translations.count > 240)
    }
}
