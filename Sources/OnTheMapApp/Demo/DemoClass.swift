import ClassKit
import Foundation
import OnTheMapService

/// A demo class for trying the bot locally: about 30 students with pins around the world, and a
/// few accounts whose logins are printed. Seeding is idempotent: it adds only what is missing.
public enum DemoClass {
    /// A demo student: name, place (geocoded with the gazetteer when seeded) and link.
    struct Student {
        var first: String
        var last: String
        var place: String
        var link: String
    }

    static let students: [Student] = [
        .init(first: "Ada", last: "Lovelace", place: "London, UK", link: "https://example.org/ada"),
        .init(first: "Grace", last: "Hopper", place: "Arlington, VA", link: "https://example.org/grace"),
        .init(first: "Alan", last: "Turing", place: "Manchester, UK", link: "https://example.org/alan"),
        .init(first: "Katherine", last: "Johnson", place: "Hampton, VA", link: "https://example.org/katherine"),
        .init(first: "Linus", last: "Torvalds", place: "Portland, OR", link: "https://example.org/linus"),
        .init(first: "Margaret", last: "Hamilton", place: "Boston, MA", link: "https://example.org/margaret"),
        .init(first: "Tim", last: "Berners-Lee", place: "Geneva, Switzerland", link: "https://example.org/tim"),
        .init(first: "Radia", last: "Perlman", place: "Seattle, WA", link: "https://example.org/radia"),
        .init(first: "Dennis", last: "Ritchie", place: "Bellevue, WA", link: "https://example.org/dennis"),
        .init(first: "Barbara", last: "Liskov", place: "Cambridge, MA", link: "https://example.org/barbara"),
        .init(first: "Yukihiro", last: "Matsumoto", place: "Matsue, Japan", link: "https://example.org/matz"),
        .init(first: "Guido", last: "van Rossum", place: "Amsterdam, Netherlands", link: "https://example.org/guido"),
        .init(first: "Frances", last: "Allen", place: "Peru, NY", link: "https://example.org/frances"),
        .init(first: "Edsger", last: "Dijkstra", place: "Rotterdam, Netherlands", link: "https://example.org/edsger"),
        .init(first: "Hedy", last: "Lamarr", place: "Vienna, Austria", link: "https://example.org/hedy"),
        .init(first: "Sophie", last: "Wilson", place: "Leeds, UK", link: "https://example.org/sophie"),
        .init(first: "Anita", last: "Borg", place: "Chicago, IL", link: "https://example.org/anita"),
        .init(first: "Jean", last: "Bartik", place: "Kansas City, MO", link: "https://example.org/jean"),
        .init(first: "Niklaus", last: "Wirth", place: "Zurich, Switzerland", link: "https://example.org/niklaus"),
        .init(first: "Shafi", last: "Goldwasser", place: "Tel Aviv, Israel", link: "https://example.org/shafi"),
        .init(first: "Sanjay", last: "Ghemawat", place: "Bangalore, India", link: "https://example.org/sanjay"),
        .init(first: "Fei-Fei", last: "Li", place: "Beijing, China", link: "https://example.org/feifei"),
        .init(first: "Mercy", last: "Mbogo", place: "Nairobi, Kenya", link: "https://example.org/mercy"),
        .init(first: "Carlos", last: "Alvarez", place: "San José, Costa Rica", link: "https://example.org/carlos"),
        .init(first: "Lucia", last: "Ferreira", place: "São Paulo, Brazil", link: "https://example.org/lucia"),
        .init(first: "Mateo", last: "Rossi", place: "Buenos Aires, Argentina", link: "https://example.org/mateo"),
        .init(first: "Aisha", last: "Bello", place: "Lagos, Nigeria", link: "https://example.org/aisha"),
        .init(first: "Olivia", last: "Chen", place: "Sydney, Australia", link: "https://example.org/olivia"),
        .init(first: "Noah", last: "Tremblay", place: "Montreal, Canada", link: "https://example.org/noah"),
        .init(first: "Elena", last: "Petrova", place: "Moscow, Russia", link: "https://example.org/elena"),
        .init(first: "Jane", last: "Doe", place: "Bellevue, WA", link: "https://example.org/jane"),
    ]

    /// Demo logins (email, password, first, last): students without a pin yet, to try `!post`.
    public static let accounts: [(email: String, password: String, first: String, last: String)] = [
        ("alice@demo.local", "alice-demo-pass", "Alice", "Martin"),
        ("bob@demo.local", "bob-demo-pass", "Bob", "Nguyen"),
        ("carol@demo.local", "carol-demo-pass", "Carol", "Okafor"),
    ]

    /// What seeding did.
    public struct Outcome: Sendable, Equatable {
        public var pinsAdded: Int
        public var accountsAdded: Int
        /// Places the gazetteer did not know (they get no pin).
        public var placesNotFound: [String]
    }

    /// Adds the demo pins (when the directory has fewer than the demo class) and the demo accounts.
    /// Each pin is stored at `precision` (the class's `privacy.default` for `seed-demo`), as a
    /// student's `!post` would be.
    public static func seed(
        into directory: any AccountDirectory, geocoder: any Geocoder, gate: PrivacyGate, precision: PinPrecision
    ) async throws -> Outcome {
        var outcome = Outcome(pinsAdded: 0, accountsAdded: 0, placesNotFound: [])
        for (index, student) in students.enumerated() {
            let key = "demo-\(index + 1)"
            guard try await directory.location(ofAccount: key) == nil else { continue }
            guard let place = try await geocoder.geocode(student.place, limit: 1).first else {
                outcome.placesNotFound.append(student.place)
                continue
            }
            let draft = PinDraft(
                uniqueKey: key, firstName: student.first, lastName: student.last, mapString: student.place,
                mediaURL: student.link, coordinate: place.coordinate)
            // As `!post` keeps it: under the gazetteer's name of the place, at the level.
            var named = draft
            if precision != .exact { named.mapString = place.displayName }
            let kept = try await gate.keep(named, at: precision, resolved: place).pin
            _ = try await directory.createLocation(kept, session: nil)
            outcome.pinsAdded += 1
        }
        let known = Set(try await directory.listAccounts().map(\.email))
        for account in accounts where !known.contains(account.email) {
            _ = try await directory.addAccount(
                email: account.email, password: account.password, firstName: account.first, lastName: account.last)
            outcome.accountsAdded += 1
        }
        return outcome
    }

    /// What removing the demo class did.
    public struct Removal: Sendable, Equatable {
        public var pinsRemoved: Int
        public var accountsRemoved: Int
    }

    /// Takes the demo pins off the map and removes the demo accounts (with their pins); what is
    /// already gone is left alone, and nothing else is touched.
    public static func remove(from directory: any AccountDirectory) async throws -> Removal {
        var removal = Removal(pinsRemoved: 0, accountsRemoved: 0)
        for index in students.indices {
            if try await directory.removeLocation(ofAccount: "demo-\(index + 1)", session: nil) != nil {
                removal.pinsRemoved += 1
            }
        }
        let known = Set(try await directory.listAccounts().map(\.email))
        for account in accounts where known.contains(account.email) {
            try await directory.removeAccount(email: account.email)
            removal.accountsRemoved += 1
        }
        return removal
    }
}
