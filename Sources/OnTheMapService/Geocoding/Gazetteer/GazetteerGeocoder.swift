import Foundation
import Localization
import NIOConcurrencyHelpers

/// The offline geocoder: a GeoNames-derived gazetteer of every country, first-level region
/// and city of 1,000 people or more, shipped with the project (`gazetteer.tsv`, built by
/// `scripts/build-gazetteer.py`, memory-mapped: only the pages lookups touch are resident). Matching is case-, accent- and punctuation-insensitive and
/// understands "City", "City, ST", "City, Region, Country", "Austin TX", street addresses
/// (falls back to their city), prefixes ("San Fran") and small misspellings ("Seatle"); those
/// last are marked `.approximate`, to be offered rather than assumed, and are only looked for in
/// text of one script without punctuation a place name never has. Unknown input gives no
/// candidates. Every place carries its IANA time zone (`PlaceCandidate.timeZone`; a country one
/// zone or `.several`), and `GazetteerGeocoder+TimeZones` finds the zone of a point or a pin.
public final class GazetteerGeocoder: Geocoder {
    /// The attribution the data's licence requires wherever results are shown at length.
    public static let attribution = "Place data © GeoNames (geonames.org), CC BY 4.0"

    let store: GazetteerStore
    /// The cities by cell, built the first time a map asks for labels.
    private let placeIndex = NIOLockedValueBox<GazetteerPlaceIndex?>(nil)
    /// The countries' and regions' own points, built the first time a pin's precision is asked.
    let administrativeIndex = NIOLockedValueBox<[PointKey: [Int32]]?>(nil)

    /// The resource folder SwiftPM builds for this module, which holds `gazetteer.tsv`.
    public static let resourceFolder = "OnTheMapBot_OnTheMapService.resources"

    /// Where the bundled gazetteer is, or an error naming the missing folder and where it was looked for.
    public static func bundledFile() throws(GazetteerError) -> URL {
        do {
            return try ResourceFolder.locate(resourceFolder, item: "gazetteer.tsv", purpose: "the offline gazetteer")
        } catch {
            throw .resourceMissing(error)
        }
    }

    /// Loads the gazetteer bundled with this module.
    public static func loadBundled() throws -> GazetteerGeocoder {
        try GazetteerGeocoder(contentsOf: try bundledFile())
    }

    /// Loads a gazetteer file: memory-mapped, or read into memory when it cannot be mapped as is
    /// (empty, or without a final newline).
    public init(contentsOf url: URL) throws {
        if let mapped = try GazetteerText(mapping: url.path) {
            store = try GazetteerStore(text: mapped)
            return
        }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: url))
        } catch {
            throw GazetteerError.unreadable("\(url.path): \(error.localizedDescription)")
        }
        store = try GazetteerStore(text: GazetteerText(copying: bytes))
    }

    /// The number of places (countries, regions and cities).
    public var placeCount: Int { store.placeCount }
    /// The number of distinct normalised names.
    public var nameCount: Int { store.keyCount }

    public func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        lookup(query, limit: limit)
    }

    /// The candidates for `query`, best first (synchronous; fast enough to call inline).
    public func lookup(_ query: String, limit: Int = 5) -> [PlaceCandidate] {
        guard limit > 0, let parts = GazetteerQueryParser.parts(of: query) else { return [] }
        var matcher = GazetteerMatcher(store: store, text: store.text.base, parts: parts)
        let ranked = matcher.run(limit: min(limit, 100))
        return ranked.map { candidate(for: Int($0.place), match: $0.isExact ? .exact : .approximate) }
    }

    /// The largest cities inside `box`, most populous first, at most `limit` (capped at 500): what
    /// a map labels. The index behind it is built on the first call (a few milliseconds; 4 bytes a city).
    public func largestCities(in box: GeoBox, limit: Int) -> [LabelledPlace] {
        return cityIndex().largest(in: box, limit: min(limit, 500), store: store).map { place in
            LabelledPlace(
                name: store.name(of: place),
                coordinate: Coordinate(
                    latitude: Self.rounded(store.latitudes[place]), longitude: Self.rounded(store.longitudes[place])),
                population: Int(store.populations[place]))
        }
    }

    /// The cities by cell, built on first use.
    func cityIndex() -> GazetteerPlaceIndex {
        placeIndex.withLockedValue { index in
            if let index { return index }
            let built = GazetteerPlaceIndex(store: store)
            index = built
            return built
        }
    }

    func candidate(for place: Int, match: PlaceMatch) -> PlaceCandidate {
        let kind = store.kind(of: place)
        let name = store.name(of: place)
        let country = Int(store.countryOf[place])
        let countryName = store.countryNames[country]
        let region = Int(store.regionOf[place])
        let regionName = region >= 0 ? store.regionNames[region - store.countryCount] : nil
        var display = name
        if kind != .country {
            if kind == .city, let regionName, regionName != name { display += ", " + regionName }
            display += ", " + countryName
        }
        return PlaceCandidate(
            displayName: display,
            adminArea: kind == .country ? nil : regionName,
            country: countryName,
            countryCode: store.countryCodes[country],
            coordinate: Coordinate(
                latitude: Self.rounded(store.latitudes[place]),
                longitude: Self.rounded(store.longitudes[place])),
            kind: kind,
            population: Int(store.populations[place]), match: match, timeZone: store.zone(of: place))
    }

    /// Undoes the Float storage error (the file has at most 5 decimals).
    static func rounded(_ value: Float) -> Double {
        (Double(value) * 100_000).rounded() / 100_000
    }
}
