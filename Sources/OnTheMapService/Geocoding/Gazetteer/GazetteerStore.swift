import Foundation

/// Why the gazetteer could not be loaded.
public enum GazetteerError: Error, Sendable, Equatable {
    /// The bundled data file is not in the resource bundle.
    case resourceMissing
    /// The file could not be read.
    case unreadable(String)
    /// The file is not a valid gazetteer (bad header, bad line, unsorted keys).
    case corrupt(String)
}

/// One entry of a key's posting list: a place id and how the key names it.
struct GazetteerPosting: Sendable, Hashable {
    enum Flag: UInt8, Sendable {
        /// The place's own name.
        case name
        /// A standalone code ("TX").
        case code
        /// An alternate name or alias.
        case alternate
        /// A code that only qualifies another name ("FR" in "Paris, FR").
        case qualifierOnly
    }
    var place: Int32
    var flag: Flag
}

/// The whole gazetteer in compact form: the file kept as one UTF-8 byte table (mapped, or held
/// in memory when it could not be mapped as is), places as parallel arrays, keys as offsets of the sorted
/// `K` lines into the table.
struct GazetteerStore: Sendable {
    /// The file; names and keys are read from it in place.
    let text: GazetteerText
    let countryCount: Int
    let regionCount: Int
    /// Country id of each place (a country's own id for a country).
    let countryOf: [Int32]
    /// Region id of each place, -1 when none (a region's own id for a region).
    let regionOf: [Int32]
    let populations: [Int32]
    let latitudes: [Float]
    let longitudes: [Float]
    let nameStarts: [Int32]
    let nameLengths: [UInt16]
    /// Offset of each key (just after "K\t"), in sorted order.
    let keyStarts: [Int32]
    /// Byte length of each key, capped at 255 (to filter spelling-tolerant scans by length).
    let keyLengths: [UInt8]
    /// Names and ISO codes of the countries, names of the regions (index: id - countryCount),
    /// kept as strings because every answer shows them.
    let countryNames: [String]
    let countryCodes: [String]
    let regionNames: [String]

    var placeCount: Int { populations.count }
    var keyCount: Int { keyStarts.count }

    func kind(of place: Int) -> PlaceKind {
        if place < countryCount { return .country }
        if place < countryCount + regionCount { return .region }
        return .city
    }

    func isAdministrative(_ place: Int32) -> Bool { Int(place) < countryCount + regionCount }

    func name(of place: Int) -> String {
        let start = Int(nameStarts[place])
        return String(decoding: text.buffer[start..<start + Int(nameLengths[place])], as: UTF8.self)
    }

}

// MARK: - Loading

extension GazetteerStore {
    private enum Section: Int { case header, countries, regions, cities, keys }

    /// How far the parse reads into a mapped file before letting go of the pages behind it.
    private static let releaseStep = 1 << 20

    /// Parses a gazetteer file whose every line, the last one too, ends in "\n". A mapped file's
    /// pages are let go of as the parse passes them, so the parse does not leave them resident.
    init(text: GazetteerText) throws(GazetteerError) {
        var countryOf: [Int32] = []
        var regionOf: [Int32] = []
        var populations: [Int32] = []
        var latitudes: [Float] = []
        var longitudes: [Float] = []
        var nameStarts: [Int32] = []
        var nameLengths: [UInt16] = []
        var countryCodeStarts: [Int32] = []
        var keyStarts: [Int32] = []
        var keyLengths: [UInt8] = []
        var countryCount = 0
        var regionCount = 0
        var failure: GazetteerError?

        guard text.count < Int(Int32.max) else { throw .corrupt("file too large") }
        let estimatedPlaces = text.count / 80
        countryOf.reserveCapacity(estimatedPlaces)
        regionOf.reserveCapacity(estimatedPlaces)
        populations.reserveCapacity(estimatedPlaces)
        latitudes.reserveCapacity(estimatedPlaces)
        longitudes.reserveCapacity(estimatedPlaces)
        nameStarts.reserveCapacity(estimatedPlaces)
        nameLengths.reserveCapacity(estimatedPlaces)
        keyStarts.reserveCapacity(text.count / 40)
        keyLengths.reserveCapacity(text.count / 40)

        parse: do {
            let base = text.base
            let end = text.count
            guard end > 0 else {
                failure = .corrupt("empty file")
                break parse
            }
            var releasedUpTo = 0
            var section = Section.header
            var lineNumber = 0
            var lineStart = 0
            var previousKey: (start: Int, end: Int)?
            var sawHeader = false

            func fail(_ message: String) {
                failure = .corrupt("line \(lineNumber): \(message)")
            }

            while lineStart < end {
                lineNumber += 1
                let lineEnd: Int
                if let found = memchr(base + lineStart, 0x0A, end - lineStart) {
                    lineEnd = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                } else {
                    lineEnd = end
                }
                defer { lineStart = lineEnd + 1 }
                if lineStart - releasedUpTo >= Self.releaseStep {
                    text.releasePages(before: lineStart)
                    releasedUpTo = lineStart
                }
                guard lineEnd > lineStart else { continue }
                var cursor = FieldCursor(base: base, position: lineStart, end: lineEnd)
                let tag = base[lineStart]
                switch tag {
                case UInt8(ascii: "#"):
                    if lineNumber == 1 {
                        guard cursor.matchesPrefix("#onthemap-gazetteer\t1") else {
                            fail("not an On The Map gazetteer (version 1)")
                            break parse
                        }
                        sawHeader = true
                    }
                    continue
                case UInt8(ascii: "C"), UInt8(ascii: "R"), UInt8(ascii: "P"):
                    let lineSection: Section =
                        tag == UInt8(ascii: "C") ? .countries : tag == UInt8(ascii: "R") ? .regions : .cities
                    guard sawHeader, lineSection.rawValue >= section.rawValue else {
                        fail("record out of order")
                        break parse
                    }
                    section = lineSection
                    cursor.skipField()
                    let id = Int32(populations.count)
                    switch lineSection {
                    case .countries:
                        guard let codeStart = cursor.field(), codeStart.count == 2 else {
                            fail("bad country code")
                            break parse
                        }
                        countryCodeStarts.append(Int32(codeStart.lowerBound))
                        cursor.skipField()  // ISO alpha-3
                        countryOf.append(id)
                        regionOf.append(-1)
                        countryCount += 1
                    case .regions:
                        guard let country = cursor.integer(), (0..<countryCount).contains(country) else {
                            fail("bad country id")
                            break parse
                        }
                        cursor.skipField()  // admin1 code
                        countryOf.append(Int32(country))
                        regionOf.append(id)
                        regionCount += 1
                    default:
                        guard let country = cursor.integer(), (0..<countryCount).contains(country),
                            let region = cursor.integer(),
                            region == -1 || (countryCount..<countryCount + regionCount).contains(region)
                        else {
                            fail("bad country or region id")
                            break parse
                        }
                        countryOf.append(Int32(country))
                        regionOf.append(Int32(region))
                    }
                    guard let population = cursor.integer(), (0...Int(Int32.max)).contains(population),
                        let latitude = cursor.decimal(), (-90...90).contains(latitude),
                        let longitude = cursor.decimal(), (-180...180).contains(longitude),
                        let name = cursor.rest(), !name.isEmpty, name.count <= Int(UInt16.max)
                    else {
                        fail("bad population, coordinate or name")
                        break parse
                    }
                    populations.append(Int32(population))
                    latitudes.append(Float(latitude))
                    longitudes.append(Float(longitude))
                    nameStarts.append(Int32(name.lowerBound))
                    nameLengths.append(UInt16(name.count))
                case UInt8(ascii: "K"):
                    guard sawHeader, section != .header else {
                        fail("key before places")
                        break parse
                    }
                    section = .keys
                    cursor.skipField()
                    guard let key = cursor.field(), !key.isEmpty, cursor.position < lineEnd else {
                        fail("bad key line")
                        break parse
                    }
                    if let previous = previousKey {
                        let order = compareBytes(
                            base + previous.start, previous.end - previous.start,
                            base + key.lowerBound, key.count)
                        guard order < 0 else {
                            fail("keys not sorted")
                            break parse
                        }
                    }
                    previousKey = (key.lowerBound, key.upperBound)
                    keyStarts.append(Int32(key.lowerBound))
                    keyLengths.append(UInt8(min(key.count, 255)))
                default:
                    fail("unknown record type")
                    break parse
                }
            }
            if failure == nil && (!sawHeader || countryCount == 0 || keyStarts.isEmpty) {
                failure = .corrupt("no places or keys")
            }
        }
        if let failure { throw failure }

        self.text = text
        self.countryCount = countryCount
        self.regionCount = regionCount
        self.countryOf = countryOf
        self.regionOf = regionOf
        self.populations = populations
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.nameStarts = nameStarts
        self.nameLengths = nameLengths
        self.keyStarts = keyStarts
        self.keyLengths = keyLengths
        func string(_ start: Int32, _ length: Int) -> String {
            String(decoding: text.buffer[Int(start)..<Int(start) + length], as: UTF8.self)
        }
        countryNames = (0..<countryCount).map { string(nameStarts[$0], Int(nameLengths[$0])) }
        countryCodes = countryCodeStarts.map { string($0, 2) }
        regionNames = (countryCount..<countryCount + regionCount).map {
            string(nameStarts[$0], Int(nameLengths[$0]))
        }
    }
}

/// Compares two byte strings in lexicographic (UTF-8 code point) order.
@inline(__always)
func compareBytes(_ a: UnsafePointer<UInt8>, _ aCount: Int, _ b: UnsafePointer<UInt8>, _ bCount: Int) -> Int {
    let common = min(aCount, bCount)
    if common > 0 {
        let order = memcmp(a, b, common)
        if order != 0 { return Int(order) }
    }
    return aCount == bCount ? 0 : (aCount < bCount ? -1 : 1)
}

/// Reads tab-separated fields of one line.
private struct FieldCursor {
    let base: UnsafePointer<UInt8>
    var position: Int
    let end: Int

    func matchesPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard end - position >= count else { return false }
        return memcmp(base + position, prefix.utf8Start, count) == 0
    }

    /// The byte range of the next field; moves past its tab.
    mutating func field() -> Range<Int>? {
        guard position <= end else { return nil }
        let start = position
        while position < end && base[position] != 0x09 { position += 1 }
        let range = start..<position
        position += 1
        return range
    }

    mutating func skipField() { _ = field() }

    /// The rest of the line (the last field, which may not contain a tab).
    mutating func rest() -> Range<Int>? {
        guard position <= end else { return nil }
        let range = position..<end
        position = end + 1
        return range
    }

    mutating func integer() -> Int? {
        guard let range = field(), !range.isEmpty, range.count <= 18 else { return nil }
        var index = range.lowerBound
        var negative = false
        if base[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
            guard index < range.upperBound else { return nil }
        }
        var value = 0
        while index < range.upperBound {
            let digit = Int(base[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
            index += 1
        }
        return negative ? -value : value
    }

    mutating func decimal() -> Double? {
        guard let range = field(), !range.isEmpty, range.count <= 24 else { return nil }
        var index = range.lowerBound
        var negative = false
        if base[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa = 0
        var scale = 1.0
        var digits = 0
        var seenPoint = false
        while index < range.upperBound {
            let byte = base[index]
            if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else {
                let digit = Int(byte) - 48
                guard (0...9).contains(digit) else { return nil }
                mantissa = mantissa * 10 + digit
                if seenPoint { scale *= 10 }
                digits += 1
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        let value = Double(mantissa) / scale
        return negative ? -value : value
    }
}
