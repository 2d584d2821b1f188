import Foundation
import OnTheMapService
import SQLiteDirectory

/// Fills a local SQLite directory with synthetic pins for the IRC load test
/// (`onthemap-bench seed-pins FILE COUNT`). Pin `i` belongs to `firstNames[i % 100]`
/// `lastNames[i / 100 % 100]`, so the 100 newest pins (the bot's map) are the first names
/// with the last surname of the list, e.g. "Ada Zamora".
enum PinSeeder {
    static let firstNames = [
        "Ada", "Alan", "Grace", "Linus", "Barbara", "Dennis", "Edsger", "Frances", "Guido", "Hedy",
        "Ivan", "Joan", "Ken", "Lynn", "Margaret", "Niklaus", "Olga", "Peter", "Radia", "Shafi",
        "Tim", "Ursula", "Vint", "Whitfield", "Xavier", "Yukihiro", "Zuse", "Anita", "Bjarne", "Claude",
        "Donald", "Elena", "Fernando", "Gloria", "Hal", "Irene", "John", "Karen", "Leslie", "Mary",
        "Nancy", "Oscar", "Pat", "Quentin", "Rosa", "Sophie", "Tony", "Uma", "Vera", "Wendy",
        "Yann", "Zoe", "Amir", "Bea", "Chen", "Dara", "Emeka", "Fatima", "Gita", "Hiro",
        "Ines", "Jamal", "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rafael",
        "Sana", "Tariq", "Ulla", "Viktor", "Wei", "Ximena", "Yara", "Zain", "Aiko", "Bruno",
        "Carla", "Dmitri", "Eva", "Farid", "Greta", "Hugo", "Ingrid", "Jonas", "Kira", "Luca",
        "Mila", "Nils", "Ola", "Pablo", "Rita", "Sven", "Tara", "Ugo", "Vanya", "Wanda",
    ]
    static let lastNames = (0..<99).map { "Family\($0)" } + ["Zamora"]
    static let places: [(String, Double, Double)] = [
        ("Paris", 48.8566, 2.3522), ("Seattle", 47.6062, -122.3321), ("Tokyo", 35.6762, 139.6503),
        ("Lagos", 6.5244, 3.3792), ("Lima", -12.0464, -77.0428), ("Sydney", -33.8688, 151.2093),
        ("Mumbai", 19.0760, 72.8777), ("Cairo", 30.0444, 31.2357), ("Berlin", 52.52, 13.405),
        ("Toronto", 43.6532, -79.3832),
    ]

    static func run(path: String, count: Int) async {
        do {
            let directory = try SQLiteStudentDirectory(path: path)
            let clock = ContinuousClock()
            // Seeded pins are kept as typed (the exact level), as a class at `privacy.default: exact` keeps them.
            let asTyped = PinCoarsener(finder: nil, cityMinimumPopulation: 0)
            let elapsed = try await clock.measure {
                for number in 0..<count {
                    let (place, latitude, longitude) = places[number % places.count]
                    let draft = PinDraft(
                        uniqueKey: "seed-\(number)", firstName: firstNames[number % 100],
                        lastName: lastNames[number / 100 % 100], mapString: place,
                        mediaURL: "https://example.com/students/\(number)",
                        coordinate: Coordinate(
                            latitude: latitude + Double.random(in: -2...2),
                            longitude: longitude + Double.random(in: -2...2)))
                    _ = try await directory.createLocation(await asTyped.coarsen(draft, to: .exact), session: nil)
                }
            }
            try directory.close()
            print("seeded \(count) pins into \(path) in \(elapsed)")
        } catch {
            print("seeding failed: \(error)")
            exit(1)
        }
    }
}
