import Foundation
import Testing

@testable import OnTheMapService

/// What a student typed at `!post`, and what the bot must make of it with the bundled gazetteer.
struct PlaceQuery: CustomTestStringConvertible, Sendable {
    enum Outcome: String, Sendable {
        /// Found: the query names the place (the best one when there are namesakes).
        case exact
        /// Only offered ("did you mean …?"), never assumed.
        case offered
        /// Not a place (online, the moon, a link…) or no place of that name.
        case refused
    }

    var query: String
    var outcome: Outcome
    /// The start of the best answer's name, for exact and offered outcomes.
    var place: String?

    var testDescription: String { "\(query) → \(outcome.rawValue)\(place.map { " \($0)" } ?? "")" }

    static func exact(_ query: String, _ place: String) -> PlaceQuery {
        PlaceQuery(query: query, outcome: .exact, place: place)
    }
    static func offered(_ query: String, _ place: String) -> PlaceQuery {
        PlaceQuery(query: query, outcome: .offered, place: place)
    }
    static func refused(_ query: String) -> PlaceQuery { PlaceQuery(query: query, outcome: .refused, place: nil) }
}

/// The table of what students type, each with the outcome it must have.
enum PlaceQueryTable {
    static let qualifierForms: [PlaceQuery] = [
        .exact("Seattle", "Seattle, Washington, United States"),
        .exact("seattle", "Seattle, Washington"),
        .exact("SEATTLE", "Seattle, Washington"),
        .exact("Seattle, WA", "Seattle, Washington"),
        .exact("Seattle WA", "Seattle, Washington"),
        .exact("Seattle, Washington", "Seattle, Washington"),
        .exact("Seattle, Washington, USA", "Seattle, Washington"),
        .exact("Seattle, US", "Seattle, Washington"),
        .exact("seattle, wa, united states", "Seattle, Washington"),
        .exact("Austin TX", "Austin, Texas"),
        .exact("Austin, Texas", "Austin, Texas"),
        .exact("Cambridge, MA", "Cambridge, Massachusetts"),
        .exact("Cambridge, UK", "Cambridge, England"),
        .exact("Cambridge, England", "Cambridge, England"),
        .exact("Portland, Oregon", "Portland, Oregon"),
        .exact("Portland, ME", "Portland, Maine"),
        .exact("Toronto, ON", "Toronto, Ontario"),
        .exact("Vancouver, BC", "Vancouver, British Columbia"),
        .exact("Vancouver, WA", "Vancouver, Washington"),
        .exact("Sydney, NSW", "Sydney, New South Wales"),
        .exact("Sydney, Australia", "Sydney, New South Wales"),
        .exact("Lyon, France", "Lyon"),
        .exact("Berlin, Germany", "Berlin"),
        .exact("Lima, Peru", "Lima"),
        .exact("Santiago, Chile", "Santiago"),
        .exact("Lagos, Nigeria", "Lagos"),
        .exact("Accra, Ghana", "Accra"),
        .exact("Osaka, Japan", "Osaka"),
        .exact("Hyderabad, India", "Hyderabad"),
        .exact("Wellington, New Zealand", "Wellington"),
        .exact("St. Petersburg, Russia", "Saint Petersburg"),
        .exact("New York, NY", "New York City"),
        .exact("Washington, DC", "Washington, District of Columbia"),
        .exact("Paris, Texas", "Paris, Texas"),
        .exact("Paris, TX", "Paris, Texas"),
        .exact("London, Ontario", "London, Ontario"),
        .exact("Seattle, Downtown", "Seattle, Washington"),
    ]

    static let citiesAndOldNames: [PlaceQuery] = [
        .exact("Berlin", "Berlin"), .exact("München", "Munich"), .exact("Munich", "Munich"),
        .exact("Köln", "Köln"), .exact("Cologne", "Köln"), .exact("Zürich", "Zürich"),
        .exact("Zurich", "Zürich"), .exact("Genève", "Geneva"), .exact("Geneva", "Geneva"),
        .exact("Peking", "Beijing"), .exact("Beijing", "Beijing"), .exact("Bombay", "Mumbai"),
        .exact("Saigon", "Ho Chi Minh City"), .exact("Calcutta", "Kolkata"), .exact("Madras", "Chennai"),
        .exact("NYC", "New York City"), .exact("SF", "San Francisco"), .exact("New York", "New York City"),
        .exact("São Paulo", "São Paulo"), .exact("Sao Paulo", "São Paulo"), .exact("Rio de Janeiro", "Rio de Janeiro"),
        .exact("Buenos Aires", "Buenos Aires"), .exact("Mexico City", "Mexico City"), .exact("Bogotá", "Bogotá"),
        .exact("Lagos", "Lagos"), .exact("Nairobi", "Nairobi"), .exact("Cairo", "Cairo"),
        .exact("Addis Ababa", "Addis Ababa"), .exact("Johannesburg", "Johannesburg"), .exact("Cape Town", "Cape Town"),
        .exact("Tokyo", "Tokyo"), .exact("Seoul", "Seoul"), .exact("Taipei", "Taipei"),
        .exact("Singapore", "Singapore"),
        .exact("Bangkok", "Bangkok"), .exact("Hanoi", "Hanoi"), .exact("Manila", "Manila"),
        .exact("Jakarta", "Jakarta"),
        .exact("Kuala Lumpur", "Kuala Lumpur"), .exact("New Delhi", "Delhi"), .exact("Bengaluru", "Bengaluru"),
        .exact("Bangalore", "Bengaluru"), .exact("Karachi", "Karachi"), .exact("Dhaka", "Dhaka"),
        .exact("Istanbul", "Istanbul"), .exact("Tehran", "Tehran"), .exact("Dubai", "Dubai"),
        .exact("Tel Aviv", "Tel Aviv"), .exact("Moscow", "Moscow"), .exact("Kyiv", "Kyiv"), .exact("Kiev", "Kyiv"),
        .exact("Warsaw", "Warsaw"), .exact("Prague", "Prague"), .exact("Vienna", "Vienna"),
        .exact("Amsterdam", "Amsterdam"), .exact("Copenhagen", "Copenhagen"), .exact("Reykjavik", "Reykjavík"),
        .exact("Edinburgh", "Edinburgh"), .exact("Lisbon", "Lisbon"), .exact("Athens", "Athens"),
        .exact("Auckland", "Auckland"),
    ]

    static let countriesAndRegions: [PlaceQuery] = [
        .exact("Costa Rica", "Costa Rica"), .exact("Germany", "Germany"), .exact("Deutschland", "Germany"),
        .exact("United States", "United States"), .exact("USA", "United States"), .exact("UK", "United Kingdom"),
        .exact("Brasil", "Brazil"), .exact("India", "India"), .exact("Japan", "Japan"),
        .exact("Ivory Coast", "Ivory Coast"), .exact("Texas", "Texas"), .exact("California", "California"),
        .exact("Bavaria", "Bavaria"), .exact("Ontario", "Ontario"), .exact("Île-de-France", "Île-de-France"),
        .exact("Ile de France", "Île-de-France"), .exact("Scotland", "Scotland"),
    ]

    static let aliases: [PlaceQuery] = [
        .exact("Bay Area", "San Francisco Bay Area"), .exact("the Bay Area", "San Francisco Bay Area"),
        .exact("SF Bay Area", "San Francisco Bay Area"), .exact("Bay Area, CA", "San Francisco Bay Area"),
        .exact("bay area california", "San Francisco Bay Area"), .exact("Silicon Valley", "Silicon Valley"),
        .exact("Greater London", "Greater London"), .exact("the Ruhr", "Ruhr"), .exact("Ruhrgebiet", "Ruhr"),
        .exact("Ruhr, Germany", "Ruhr"), .exact("Greater Toronto Area", "Greater Toronto Area"),
        .exact("GTA", "Greater Toronto Area"), .exact("Twin Cities", "Twin Cities"),
        .exact("Research Triangle", "Research Triangle"), .exact("DFW", "Dallas–Fort Worth"),
        .exact("Randstad", "Randstad"), .exact("SoCal", "Greater Los Angeles"),
        .exact("Greater Tokyo", "Greater Tokyo"),
        .exact("Kansai", "Kansai"), .exact("Delhi NCR", "National Capital Region"),
        .exact("French Riviera", "French Riviera"), .exact("Greater Manchester", "Greater Manchester"),
        .exact("Rhein-Main", "Frankfurt Rhine-Main"), .exact("Puget Sound", "Puget Sound"),
        .exact("Tri-State Area", "New York metropolitan area"), .exact("DMV", "Washington metropolitan area"),
        .exact("Inland Empire", "Inland Empire"), .exact("Costa del Sol", "Costa del Sol"),
        .exact("Greater Sydney", "Greater Sydney"), .exact("Greater Paris", "Greater Paris"),
    ]

    static let namesakes: [PlaceQuery] = [
        .exact("Paris", "Paris, Île-de-France, France"), .exact("Portland", "Portland, Oregon"),
        .exact("Springfield", "Springfield"), .exact("London", "London, England"),
        .exact("Birmingham", "Birmingham, England"), .exact("Georgia", "Georgia"),
        .exact("Valencia", "Valencia"), .exact("Córdoba", "Córdoba"),
    ]

    static let addresses: [PlaceQuery] = [
        .exact("1600 Amphitheatre Pkwy, Mountain View, CA 94043", "Mountain View, California"),
        .exact("10 Downing St, London", "London, England"),
        .exact("221B Baker Street, London NW1 6XE, UK", "London, England"),
        .exact("350 5th Ave, New York, NY 10118", "New York City"),
        .exact("Unter den Linden 77, 10117 Berlin", "Berlin"),
        .exact("1 Infinite Loop, Cupertino, CA", "Cupertino, California"),
        .exact("10 Downing Street London", "London, England"),
    ]

    static let typos: [PlaceQuery] = [
        .offered("Seatle", "Seattle, Washington"), .offered("Sattle", "Seattle, Washington"),
        .offered("Pitsburgh", "Pittsburgh"), .offered("San Fran", "San Francisco"),
        .offered("Seatle, WA", "Seattle, Washington"), .offered("Philadelpia", "Philadelphia"),
        .offered("Barcelonna", "Barcelona"), .offered("Amsterdamm", "Amsterdam"),
        .offered("Edinbrugh", "Edinburgh"), .offered("Johanesburg", "Johannesburg"),
        .offered("Copenhagn", "Copenhagen"), .offered("Melborne", "Melbourne"),
        .offered("Smallville, Ohio", "Ohio"), .offered("Los Angelos", "Los Angeles"),
        .offered("Massachusets", "Massachusetts"), .offered("Argentinia", "Argentina"),
    ]

    static let nonPlaces: [PlaceQuery] = [
        .refused("online"), .refused("Online"), .refused("remote"), .refused("Remote"), .refused("home office"),
        .refused("Home Office"), .refused("anywhere"), .refused("everywhere"), .refused("N/A"), .refused("n/a"),
        .refused("none"), .refused("the moon"), .refused("The Moon"), .refused("Mars"), .refused("at home"),
        .refused("I'm remote"), .refused("working from home"), .refused("WFH"), .refused("the internet"),
        .refused("Narnia"), .refused("Hogwarts"), .refused("Earth"), .refused("planet earth"), .refused("idk"),
        .refused("test"), .refused("unknown"), .refused("???"), .refused("-"), .refused("xyzzy"),
        .refused("asdfgh qwerty"), .refused("everywhere and nowhere"),
    ]

    static let linksAndHostileText: [PlaceQuery] = [
        .refused("javascript:alert(1)"), .refused("JavaScript:alert(document.cookie)"),
        .refused("https://example.com"), .refused("http://jane.example/portfolio"), .refused("www.example.com"),
        .refused("example.com"), .refused("github.com/jane"), .refused("student@example.com"),
        .refused("mailto:a@b.c"), .refused("data:text/html,<script>alert(1)</script>"),
        .refused("ftp://files.example.org"), .refused("<script>alert(1)</script>"),
        .refused("'; DROP TABLE pins;--"), .refused("12345"),
    ]

    static let otherScripts: [PlaceQuery] = [
        .exact("Москва", "Moscow"), .exact("東京", "Tokyo"), .exact("서울", "Seoul"),
        .exact("Αθήνα", "Athens"),
        // A letter of another script inside a Latin name (or the other way round) is no typo.
        .refused("Pаris"), .refused("Seattlе"), .refused("Москвa"),
    ]

    static let all: [PlaceQuery] =
        qualifierForms + citiesAndOldNames + countriesAndRegions + aliases + namesakes + addresses + typos + nonPlaces
        + linksAndHostileText + otherScripts
}

@Suite("Place resolution: what students type")
struct PlaceResolutionTableTests {
    static let resolver: Result<PlaceResolver, any Error> = Result {
        PlaceResolver(geocoder: try SharedGazetteer.geocoder())
    }

    @Test("The table has at least 150 queries, none twice")
    func tableIsLarge() {
        #expect(PlaceQueryTable.all.count >= 150)
        #expect(Set(PlaceQueryTable.all.map(\.query)).count == PlaceQueryTable.all.count)
    }

    @Test("Each query has its outcome", arguments: PlaceQueryTable.all)
    func outcome(_ row: PlaceQuery) async throws {
        let resolution = try await Self.resolver.get().resolve(row.query)
        let outcome: PlaceQuery.Outcome
        let best: PlaceCandidate?
        switch resolution {
        case .found(let place, _): (outcome, best) = (.exact, place)
        case .offered(let offers): (outcome, best) = (.offered, offers.first)
        case .notAPlace, .notFound: (outcome, best) = (.refused, nil)
        }
        #expect(outcome == row.outcome, "\(row.query): \(resolution)")
        if let expected = row.place, outcome == row.outcome {
            let name = best?.displayName ?? ""
            #expect(name.hasPrefix(expected), "\(row.query) → \(name)")
        }
    }
}
