import Foundation
import Localization

/// Why the gazetteer could not be loaded.
public enum GazetteerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bundled data file is not where the program looks for it.
    case resourceMissing(ResourceFolderMissing)
    /// The file could not be read.
    case unreadable(String)
    /// The file is not a valid gazetteer (bad header, bad line, unsorted keys).
    case corrupt(String)

    public var description: String {
        switch self {
        case .resourceMissing(let missing): return missing.description
        case .unreadable(let reason): return "the gazetteer cannot be read: \(reason)"
        case .corrupt(let reason): return "the gazetteer file is damaged: \(reason)"
        }
    }
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
    /// The time zone of each place: an index into `zoneNames`, or `GazetteerStore.severalZones`
    /// (a country whose towns keep different times), or `GazetteerStore.noZone`.
    let zoneOf: [Int16]
    /// The IANA names of the `Z` lines, in file order (a few hundred, so kept as strings).
    let zoneNames: [String]
    /// Offset of each key (just after "K\t"), in sorted order.
    let keyStarts: [Int32]
    /// Byte length of each key, capped at 255 (to filter spelling-tolerant scans by length).
    let keyLengths: [UInt8]
    /// Names and ISO codes of the countries, names of the regions (index: id - countryCount),
    /// kept as strings because every answer shows them.
    let countryNames: [String]
    let countryCodes: [String]
    let regionNames: [String]

    /// The `zoneOf` value of a country whose towns keep different times.
    static let severalZones: Int16 = -2
    /// The `zoneOf` value of a place without a known zone (an uninhabited territory).
    static let noZone: Int16 = -1

    var placeCount: Int { populations.count }
    var keyCount: Int { keyStarts.count }

    func kind(of place: Int) -> PlaceKind {
        if place < countryCount { return .country }
        if place < countryCount + regionCount { return .region }
        return .city
    }

    func isAdministrative(_ place: Int32) -> Bool { Int(place) < countryCount + regionCount }

    /// The division a city is in, for keeping a pin inside it: its region's id, or its country's
    /// when the data gives it no region (a country or region id, below `countryCount + regionCount`).
    func division(of place: Int) -> Int {
        let region = Int(regionOf[place])
        return region >= countryCount && region < countryCount + regionCount ? region : Int(countryOf[place])
    }

    /// The time zone of `place`: its IANA name, that its country has several, or none known.
    func zone(of place: Int) -> PlaceTimeZone {
        let zone = zoneOf[place]
        switch zone {
        case Self.severalZones: return .several
        case 0...: return .zone(zoneNames[Int(zone)])
        default: return .unknown
        }
    }

    func name(of place: Int) -> String {
        let start = Int(nameStarts[place])
        return String(decoding: text.buffer[start..<start + Int(nameLengths[place])], as: UTF8.self)
    }

}

// MARK: - Loading

extension GazetteerStore {
    /// How far the parse reads into a mapped file before letting go of the pages behind it.
    private static let releaseStep = 1 << 20

    /// Parses a gazetteer file whose every line, the last one too, ends in "\n". A mapped file's
    /// pages are let go of as the parse passes them, so the parse does not leave them resident.
    init(text: GazetteerText) throws(GazetteerError) {
        guard text.count < Int(Int32.max) else { throw .corrupt("file too large") }
        let base = text.base
        let end = text.count
        guard end > 0 else { throw .corrupt("empty file") }
        var columns = GazetteerColumns(reservingFor: end)
        var releasedUpTo = 0
        var lineNumber = 0
        var lineStart = 0
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
            do throws(BadGazetteerLine) {
                try columns.add(FieldCursor(base: base, position: lineStart, end: lineEnd), isFirst: lineNumber == 1)
            } catch {
                throw .corrupt("line \(lineNumber): \(error.reason)")
            }
        }
        guard columns.sawHeader, columns.countryCount > 0, !columns.keyStarts.isEmpty else {
            throw .corrupt("no places or keys")
        }
        self.init(text: text, columns: columns)
    }

    private init(text: GazetteerText, columns: GazetteerColumns) {
        self.text = text
        countryCount = columns.countryCount
        regionCount = columns.regionCount
        countryOf = columns.countryOf
        regionOf = columns.regionOf
        populations = columns.populations
        latitudes = columns.latitudes
        longitudes = columns.longitudes
        nameStarts = columns.nameStarts
        nameLengths = columns.nameLengths
        zoneOf = columns.zoneOf
        keyStarts = columns.keyStarts
        keyLengths = columns.keyLengths
        func string(_ start: Int32, _ length: Int) -> String {
            String(decoding: text.buffer[Int(start)..<Int(start) + length], as: UTF8.self)
        }
        let (countries, regions) = (columns.countryCount, columns.regionCount)
        let (nameStarts, nameLengths) = (columns.nameStarts, columns.nameLengths)
        countryNames = (0..<countries).map { string(nameStarts[$0], Int(nameLengths[$0])) }
        countryCodes = columns.countryCodeStarts.map { string($0, 2) }
        regionNames = (countries..<countries + regions).map { string(nameStarts[$0], Int(nameLengths[$0])) }
        zoneNames = columns.zoneNameRanges.map { string(Int32($0.lowerBound), $0.count) }
    }
}

/// Why one line of a gazetteer file is not valid.
private struct BadGazetteerLine: Error {
    let reason: String
}

/// The columns of a gazetteer as its lines are read, in file order: the header, time zones (`Z`),
/// countries (`C`), regions (`R`), cities (`P`), then the sorted keys (`K`).
private struct GazetteerColumns {
    private enum Section: Int { case header, zones, countries, regions, cities, keys }

    var countryOf: [Int32] = []
    var regionOf: [Int32] = []
    var populations: [Int32] = []
    var latitudes: [Float] = []
    var longitudes: [Float] = []
    var nameStarts: [Int32] = []
    var nameLengths: [UInt16] = []
    var zoneOf: [Int16] = []
    var zoneNameRanges: [Range<Int>] = []
    var countryCodeStarts: [Int32] = []
    var keyStarts: [Int32] = []
    var keyLengths: [UInt8] = []
    var countryCount = 0
    var regionCount = 0
    private(set) var sawHeader = false
    private var section = Section.header
    private var previousKey: Range<Int>?

    /// Empty columns with room for the places and keys a file of `byteCount` bytes usually holds.
    init(reservingFor byteCount: Int) {
        let estimatedPlaces = byteCount / 80
        countryOf.reserveCapacity(estimatedPlaces)
        regionOf.reserveCapacity(estimatedPlaces)
        populations.reserveCapacity(estimatedPlaces)
        latitudes.reserveCapacity(estimatedPlaces)
        longitudes.reserveCapacity(estimatedPlaces)
        nameStarts.reserveCapacity(estimatedPlaces)
        nameLengths.reserveCapacity(estimatedPlaces)
        zoneOf.reserveCapacity(estimatedPlaces)
        keyStarts.reserveCapacity(byteCount / 40)
        keyLengths.reserveCapacity(byteCount / 40)
    }

    /// Adds one non-empty line; `isFirst` when it is the file's first line (which must be the header).
    mutating func add(_ line: FieldCursor, isFirst: Bool) throws(BadGazetteerLine) {
        var cursor = line
        switch line.base[line.position] {
        case UInt8(ascii: "#"):
            guard isFirst else { return }
            guard cursor.matchesPrefix("#onthemap-gazetteer\t2") else {
                throw BadGazetteerLine(reason: "not an On The Map gazetteer (version 2)")
            }
            sawHeader = true
        case UInt8(ascii: "Z"):
            try addZone(&cursor)
        case UInt8(ascii: "C"):
            try addPlace(in: .countries, &cursor)
        case UInt8(ascii: "R"):
            try addPlace(in: .regions, &cursor)
        case UInt8(ascii: "P"):
            try addPlace(in: .cities, &cursor)
        case UInt8(ascii: "K"):
            try addKey(&cursor)
        default:
            throw BadGazetteerLine(reason: "unknown record type")
        }
    }

    /// A place record: the fields of its kind, then population, latitude, longitude and name.
    private mutating func addPlace(in lineSection: Section, _ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard sawHeader, lineSection.rawValue >= section.rawValue else {
            throw BadGazetteerLine(reason: "record out of order")
        }
        section = lineSection
        cursor.skipField()
        switch lineSection {
        case .countries: try addCountryFields(&cursor)
        case .regions: try addRegionFields(&cursor)
        default: try addCityFields(&cursor)
        }
        try addZoneField(&cursor, allowingSeveral: lineSection == .countries)
        guard let population = cursor.integer(), (0...Int(Int32.max)).contains(population),
            let latitude = cursor.decimal(), (-90...90).contains(latitude),
            let longitude = cursor.decimal(), (-180...180).contains(longitude),
            let name = cursor.rest(), !name.isEmpty, name.count <= Int(UInt16.max)
        else {
            throw BadGazetteerLine(reason: "bad population, coordinate or name")
        }
        populations.append(Int32(population))
        latitudes.append(Float(latitude))
        longitudes.append(Float(longitude))
        nameStarts.append(Int32(name.lowerBound))
        nameLengths.append(UInt16(name.count))
    }

    /// `Z`: an IANA time zone name, before every place.
    private mutating func addZone(_ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard sawHeader, section.rawValue <= Section.zones.rawValue else {
            throw BadGazetteerLine(reason: "record out of order")
        }
        section = .zones
        cursor.skipField()
        guard let name = cursor.rest(), !name.isEmpty, name.count <= 64,
            zoneNameRanges.count < Int(Int16.max)
        else {
            throw BadGazetteerLine(reason: "bad time zone line")
        }
        zoneNameRanges.append(name)
    }

    /// A place's zone field: the index of a `Z` line, "several" (countries only) or empty.
    private mutating func addZoneField(_ cursor: inout FieldCursor, allowingSeveral: Bool) throws(BadGazetteerLine) {
        var peek = cursor
        guard let field = peek.field() else { throw BadGazetteerLine(reason: "bad time zone") }
        if field.isEmpty {
            zoneOf.append(GazetteerStore.noZone)
            cursor = peek
        } else if allowingSeveral, cursor.matchesPrefix("several\t") {
            zoneOf.append(GazetteerStore.severalZones)
            cursor = peek
        } else {
            guard let zone = cursor.integer(), (0..<zoneNameRanges.count).contains(zone) else {
                throw BadGazetteerLine(reason: "bad time zone")
            }
            zoneOf.append(Int16(zone))
        }
    }

    /// `C`: ISO alpha-2 and alpha-3 codes; a country is its own country.
    private mutating func addCountryFields(_ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard let codeStart = cursor.field(), codeStart.count == 2 else {
            throw BadGazetteerLine(reason: "bad country code")
        }
        countryCodeStarts.append(Int32(codeStart.lowerBound))
        cursor.skipField()  // ISO alpha-3
        countryOf.append(Int32(populations.count))
        regionOf.append(-1)
        countryCount += 1
    }

    /// `R`: the country's id and the admin1 code; a region is its own region.
    private mutating func addRegionFields(_ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard let country = cursor.integer(), (0..<countryCount).contains(country) else {
            throw BadGazetteerLine(reason: "bad country id")
        }
        cursor.skipField()  // admin1 code
        countryOf.append(Int32(country))
        regionOf.append(Int32(populations.count))
        regionCount += 1
    }

    /// `P`: the country's id and the region's id (-1 for none).
    private mutating func addCityFields(_ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard let country = cursor.integer(), (0..<countryCount).contains(country),
            let region = cursor.integer(),
            region == -1 || (countryCount..<countryCount + regionCount).contains(region)
        else {
            throw BadGazetteerLine(reason: "bad country or region id")
        }
        countryOf.append(Int32(country))
        regionOf.append(Int32(region))
    }

    /// `K`: a search key, after every place and in strictly increasing byte order.
    private mutating func addKey(_ cursor: inout FieldCursor) throws(BadGazetteerLine) {
        guard sawHeader, section != .header else { throw BadGazetteerLine(reason: "key before places") }
        section = .keys
        cursor.skipField()
        guard let key = cursor.field(), !key.isEmpty, cursor.position < cursor.end else {
            throw BadGazetteerLine(reason: "bad key line")
        }
        if let previous = previousKey {
            let order = compareBytes(
                cursor.base + previous.lowerBound, previous.count,
                cursor.base + key.lowerBound, key.count)
            guard order < 0 else { throw BadGazetteerLine(reason: "keys not sorted") }
        }
        previousKey = key
        keyStarts.append(Int32(key.lowerBound))
        keyLengths.append(UInt8(min(key.count, 255)))
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
