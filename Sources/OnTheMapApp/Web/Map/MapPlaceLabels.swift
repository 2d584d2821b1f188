import Foundation
import Hummingbird
import OnTheMapService

/// Where the class map's city labels come from: the offline gazetteer the bot loads whatever its
/// geocoder (pins are coarsened to its places), or none.
public struct MapPlaceLabels: Sendable {
    let gazetteer: @Sendable () async -> GazetteerGeocoder?

    /// `gazetteer` gives the loaded gazetteer, or nil when there is none (it may wait for a load).
    public init(gazetteer: @escaping @Sendable () async -> GazetteerGeocoder?) {
        self.gazetteer = gazetteer
    }

    /// No labels.
    public static let none = MapPlaceLabels { nil }

    /// The labels of a loaded gazetteer.
    public init(_ gazetteer: GazetteerGeocoder) {
        self.init { gazetteer }
    }

    /// The labels of the gazetteer loading in the background (an answer waits for it; none when it
    /// cannot be loaded).
    public init(_ loading: BackgroundLoadedGazetteer) {
        self.init { try? await loading.loaded() }
    }

    /// The most labels one answer carries, and how many when the page does not say.
    static let maximumLimit = 100
    static let defaultLimit = 40
}

/// One labelled city of `/map/places.json`.
struct MapPlaceLabel: Encodable, Equatable {
    var name: String
    var lat: Double
    var lon: Double
    var population: Int
}

extension WebMap {
    /// `GET /map/places.json?bbox=west,south,east,north[&limit=N]`: the largest cities of the
    /// gazetteer inside the box, most populous first (`{"places": [{name, lat, lon, population}]}`,
    /// at most 100; none without a gazetteer). A bad box or limit is a 400 with a sentence saying
    /// what is expected. The answer depends only on the query, so browsers may keep it a day.
    func placesResponse(bbox: String?, limit: String?) async -> Response {
        let box: GeoBox
        switch Self.parseBox(bbox) {
        case .success(let parsed): box = parsed
        case .failure(let problem): return badPlacesRequest(problem.message)
        }
        var count = MapPlaceLabels.defaultLimit
        if let limit {
            guard limit.count <= 3, let value = Int(limit), (1...MapPlaceLabels.maximumLimit).contains(value) else {
                return badPlacesRequest("limit must be a whole number from 1 to \(MapPlaceLabels.maximumLimit).")
            }
            count = value
        }
        let places = await placeLabels.gazetteer()?.largestCities(in: box, limit: count) ?? []
        let labels = places.map {
            MapPlaceLabel(
                name: $0.name, lat: $0.coordinate.latitude, lon: $0.coordinate.longitude, population: $0.population)
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let body = try encoder.encode(["places": labels])
            return respond(body, type: "application/json", cache: "max-age=86400")
        } catch {
            logger.warning("web map could not encode place labels", metadata: ["error": "\(error)"])
            return respond(Data(), type: "application/json", cache: "no-store", status: .internalServerError)
        }
    }

    struct BadBox: Error {
        let message: String
    }

    /// "west,south,east,north" in degrees (spaces allowed), a box `GeoBox` accepts.
    static func parseBox(_ raw: String?) -> Result<GeoBox, BadBox> {
        let expected = "bbox=west,south,east,north in degrees, e.g. bbox=-10,36.8,-6.1,42.2"
        guard let raw, !raw.isEmpty else { return .failure(BadBox(message: "Give the box as \(expected).")) }
        guard raw.count <= 120 else { return .failure(BadBox(message: "The box is too long; give \(expected).")) }
        let numbers = raw.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard numbers.count == 4, let west = numbers[0], let south = numbers[1], let east = numbers[2],
            let north = numbers[3]
        else { return .failure(BadBox(message: "The box is not four numbers; give \(expected).")) }
        guard let box = GeoBox(west: west, south: south, east: east, north: north) else {
            return .failure(
                BadBox(
                    message:
                        "The box is not on the map: longitudes -180 to 180, west before east; "
                        + "latitudes -90 to 90, south before north."))
        }
        return .success(box)
    }

    private func badPlacesRequest(_ message: String) -> Response {
        respond(Data((message + "\n").utf8), type: "text/plain; charset=utf-8", cache: "no-store", status: .badRequest)
    }
}
