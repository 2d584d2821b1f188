import BotTesting
import ClassKit
import Foundation
import OnTheMapApp
import OnTheMapService
import Testing

/// With a Nominatim geocoder the bot still loads the offline gazetteer (pins are coarsened to its
/// places), and the local-time commands, trips and the web map take their time zones from it.
@Suite struct TimeZoneSourceTests {
    @Test func aClassThatGeocodesWithNominatimHasTheGazetteersZones() async throws {
        let folder = try TemporaryDirectory(prefix: "zones-nominatim")
        let config = try ConfigLoader.parse(
            yaml: ConfigTests.minimal + """

                service: {database: \(folder.file("class.sqlite"))}
                geocoder: {kind: nominatim, nominatim_url: "http://127.0.0.1:9/", user_agent: onthemap-test}

                """)
        let stack = try await ServiceStack.make(config: config, logger: .init(label: "test"))
        let services = ClassServices(
            directory: stack.directory, trips: stack.trips, geocoder: stack.geocoder, places: stack.placeLevels)
        #expect(!(stack.geocoder is any TimeZoneFinder), "the geocoder itself knows no zones")
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(await services.timeZones.timeZone(ofPinAt: london, named: "London") == .zone("Europe/London"))
        let tokyo = Coordinate(latitude: 35.6895, longitude: 139.6917)
        #expect(await services.timeZones.finder?.timeZone(near: tokyo) == .zone("Asia/Tokyo"))
        await stack.shutdown()
    }
}
