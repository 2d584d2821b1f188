import BotTesting
import Foundation
import OnTheMapService
import SQLiteDirectory
import Testing

/// `onthemap-bot pins …` and `seed-demo --remove`, run as the operator runs them: the built
/// executable on a real SQLite file.
@Suite struct PinsCommandTests {
    typealias CLI = AccountsCommandTests

    @Test func pinsRemoveByObjectIdOrUniqueKeyAndSeedDemoRemove() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-cli")
        let (config, database) = try CLI.makeConfig(in: folder)
        let seed = try await CLI.run(["seed-demo", "--config", config])
        #expect(seed.status == 0, "\(seed.output)")
        let directory = try SQLiteStudentDirectory(path: database)
        let seeded = try await directory.recentLocations(limit: 100, skip: 0)
        #expect(seeded.count >= 30)
        // seed-demo stores the demo class no finer than the class's default level (city), as a
        // student's !post would: a town at city level, a place the gazetteer knows as a region as it is.
        let levels = PinCoarsener(
            finder: try GazetteerGeocoder.loadBundled(),
            cityMinimumPopulation: PrivacyPolicy.defaultCityMinimumPopulation)
        for pin in seeded { #expect(await levels.precision(of: pin) >= .city, "\(pin.mapString)") }
        let first = try #require(seeded.first { $0.uniqueKey == "demo-1" })
        let second = try #require(seeded.first { $0.uniqueKey == "demo-2" })
        let revision = try #require(try await directory.locationChanges(after: 0, limit: 10_000)).lastRevision

        let byId = try await CLI.run(["pins", "remove", "--config", config, first.objectId])
        #expect(byId.status == 0, "\(byId.output)")
        #expect(byId.output.contains("Removed \(first.fullName) — \(first.mapString) (objectId \(first.objectId))."))
        let byKey = try await CLI.run(["pins", "remove", "--config", config, "demo-2"])
        #expect(byKey.status == 0, "\(byKey.output)")
        #expect(try await directory.location(ofAccount: "demo-1") == nil)
        #expect(try await directory.location(ofAccount: "demo-2") == nil)
        // A running bot reads both removals from the change feed.
        let page = try #require(try await directory.locationChanges(after: revision, limit: 100))
        let removed = page.changes.compactMap { change -> String? in
            if case .removed(let objectId) = change { return objectId }
            return nil
        }
        #expect(removed == [first.objectId, second.objectId])

        let missing = try await CLI.run(["pins", "remove", "--config", config, "demo-2"])
        #expect(missing.status != 0)
        #expect(missing.output.contains("no pin has the objectId or uniqueKey demo-2"), "\(missing.output)")

        let remove = try await CLI.run(["seed-demo", "--remove", "--config", config])
        #expect(remove.status == 0, "\(remove.output)")
        #expect(
            remove.output.contains("Demo class removed: \(seeded.count - 2) pins, 3 demo logins."), "\(remove.output)")
        #expect(try await directory.recentLocations(limit: 100, skip: 0).isEmpty)
        #expect(try await directory.listAccounts().isEmpty)
        try directory.close()
    }

    @Test func theUdacityBackendHasNoDelete() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-cli-udacity")
        let config = folder.file("bot.yaml")
        try "service:\n  backend: udacity\n  udacity_url: http://127.0.0.1:9/\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let remove = try await CLI.run(["pins", "remove", "--config", config, "some-id"])
        #expect(remove.status != 0)
        #expect(remove.output.contains("cannot delete a pin: its contract has no delete"), "\(remove.output)")
    }
}

/// `pins import`, `export` and `list` through the built executable on a real SQLite file.
@Suite struct PinsImportCommandTests {
    typealias CLI = AccountsCommandTests

    static let goodCSV = """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        k1,Ada,Lovelace,"London, UK",https://ada.example,51.5,-0.12
        k2,Grace,Hopper,"New York, NY",https://grace.example,40.71,-74.0
        """

    @Test func aMalformedFileChangesNothingAndNamesEveryBadLine() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-import-bad")
        let (config, database) = try CLI.makeConfig(in: folder)
        let file = folder.file("class.csv")
        try
            (Self.goodCSV + "\nk3,Eve,Roe,Rome,javascript:alert(1),41.9,12.5\nk4,Al,Poe,Oslo,https://al.example,95,10\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["pins", "import", "--config", config, file])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("line 4: mediaURL is a javascript: link"), "\(refused.output)")
        #expect(refused.output.contains("line 5: 95.0, 10.0 is not a latitude"), "\(refused.output)")
        #expect(refused.output.contains("2 bad records; nothing was imported."))
        let directory = try SQLiteStudentDirectory(path: database)
        #expect(try await directory.recentLocations(limit: 10, skip: 0).isEmpty)

        let skipped = try await CLI.run(["pins", "import", "--config", config, "--skip-bad", file])
        #expect(skipped.status == 1, "\(skipped.output)")
        #expect(skipped.output.contains("Imported 2 pins: 2 new, 0 updated; 2 bad records skipped."))
        #expect(try await directory.recentLocations(limit: 10, skip: 0).map(\.uniqueKey).sorted() == ["k1", "k2"])
        try directory.close()
    }

    @Test func exportThenImportElsewhereKeepsEveryPinAndUpdatesByUniqueKey() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-import-roundtrip")
        let (config, database) = try CLI.makeConfig(in: folder)
        let file = folder.file("class.csv")
        try Self.goodCSV.write(toFile: file, atomically: true, encoding: .utf8)
        // Moving a class map keeps every pin as it was: exact precision.
        let imported = try await CLI.run(["pins", "import", "--config", config, "--precision", "exact", file])
        #expect(imported.status == 0, "\(imported.output)")
        #expect(imported.output.contains("Imported 2 pins: 2 new, 0 updated."))

        let list = try await CLI.run(["pins", "list", "--config", config, "--name", "grace"])
        #expect(list.status == 0 && list.output.contains("\tk2\tGrace Hopper\tNew York, NY\t"), "\(list.output)")
        #expect(list.output.contains("1 pin."))

        let exported = folder.file("class.json")
        let export = try await CLI.run(["pins", "export", "--config", config, "--output", exported])
        #expect(export.status == 0 && export.output.contains("Wrote 2 pins"), "\(export.output)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported)))
        let results = try #require((json as? [String: Any])?["results"] as? [[String: Any]])
        #expect(Set(results.compactMap { $0["uniqueKey"] as? String }) == ["k1", "k2"])
        #expect(results.allSatisfy { $0["objectId"] is String && $0["updatedAt"] is String && $0["latitude"] != nil })

        // Into another class: the same pins; again into the first: updates, nothing new.
        let other = try TemporaryDirectory(prefix: "pins-import-other")
        let (otherConfig, otherDatabase) = try CLI.makeConfig(in: other)
        #expect(
            try await CLI.run(["pins", "import", "--config", otherConfig, "--precision", "exact", exported]).status == 0
        )
        let again = try await CLI.run(["pins", "import", "--config", config, "--precision", "exact", exported])
        #expect(again.output.contains("Imported 2 pins: 0 new, 2 updated."), "\(again.output)")
        let first = try SQLiteStudentDirectory(path: database)
        let second = try SQLiteStudentDirectory(path: otherDatabase)
        let original = try await first.recentLocations(limit: 10, skip: 0)
        let copied = try await second.recentLocations(limit: 10, skip: 0)
        #expect(copied.map(\.uniqueKey) == original.map(\.uniqueKey))
        #expect(copied.map(\.updatedAt) == original.map(\.updatedAt))
        #expect(copied.map(\.mediaURL) == original.map(\.mediaURL))
        try first.close()
        try second.close()
    }
}

/// `pins import` at the class's precision and `pins coarsen`, through the built executable.
@Suite struct PinPrecisionCommandTests {
    typealias CLI = AccountsCommandTests

    static let streets = """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        k1,Ada,Lovelace,"1600 Amphitheatre Parkway, Mountain View, CA",https://ada.example,37.422476,-122.084249
        k2,Grace,Hopper,"10 Downing Street, London",https://grace.example,51.50344,-0.12770
        """

    static func pins(_ database: String, limit: Int = 10) async throws -> [String: StudentLocation] {
        let directory = try SQLiteStudentDirectory(path: database)
        defer { try? directory.close() }
        return Dictionary(
            uniqueKeysWithValues: try await directory.recentLocations(limit: limit, skip: 0).map { ($0.uniqueKey, $0) })
    }

    /// An import keeps each pin at the class's level or its student's coarser choice, with the
    /// name in the form its student chose (`!privacy name first`), and no street reaches the file.
    @Test func anImportKeepsTownsNotStreetsAndAStudentsCoarserChoice() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-import-precision")
        let (config, database) = try CLI.makeConfig(in: folder)
        let file = folder.file("streets.csv")
        try Self.streets.write(toFile: file, atomically: true, encoding: .utf8)
        let state = try SQLiteStudentDirectory(path: database)
        try await state.setState("precision/k2", "country")
        try await state.setState("name/k2", "first")
        try state.close()

        let imported = try await CLI.run(["pins", "import", "--config", config, file])
        #expect(imported.status == 0, "\(imported.output)")
        let pins = try await Self.pins(database)
        #expect(pins["k1"]?.mapString == "Mountain View, California, United States")
        #expect(pins["k1"]?.lastName == "Lovelace")
        #expect(pins["k2"]?.mapString == "United Kingdom", "the student chose country")
        #expect(pins["k2"]?.lastName == "H.", "the student chose their first name only")
        let bytes =
            try Data(contentsOf: URL(fileURLWithPath: database))
            + ((try? Data(contentsOf: URL(fileURLWithPath: database + "-wal"))) ?? Data())
        #expect(bytes.range(of: Data("Amphitheatre".utf8)) == nil)
        #expect(bytes.range(of: Data("Downing".utf8)) == nil)

        let bad = try await CLI.run(["pins", "import", "--config", config, "--precision", "street", file])
        #expect(bad.status != 0)
        #expect(bad.output.contains("street"), "\(bad.output)")
    }

    /// A file large enough to be kept in parts side by side: every pin is kept at its own place and
    /// its own student's choice, whichever part it fell in (the parts are put back in the file's order).
    @Test func aLargeImportKeepsEachPinWithItsOwnStudent() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-import-parts")
        let (config, database) = try CLI.makeConfig(in: folder)
        let count = 6_000
        var lines = ["uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude"]
        for index in 0..<count {
            let point = index % 2 == 0 ? "37.422476,-122.084249" : "51.50344,-0.12770"
            lines.append("s\(index),First\(index),Last\(index),Somewhere,https://example.org/\(index),\(point)")
        }
        let file = folder.file("class.csv")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let chosen: Set = ["s10", "s4501"]
        let state = try SQLiteStudentDirectory(path: database)
        for key in chosen { try await state.setState("precision/\(key)", "country") }
        try state.close()

        let imported = try await CLI.run(["pins", "import", "--config", config, file])
        #expect(imported.status == 0, "\(imported.output)")
        let pins = try await Self.pins(database, limit: count + 10)
        #expect(pins.count == count)
        let london = pins["s1"]?.mapString ?? ""
        #expect(london.hasPrefix("London"), "\(london)")
        var misplaced: [String] = []
        for index in 0..<count {
            let key = "s\(index)"
            let expected =
                chosen.contains(key)
                ? (index % 2 == 0 ? "United States" : "United Kingdom")
                : (index % 2 == 0 ? "Mountain View, California, United States" : london)
            if pins[key]?.mapString != expected || pins[key]?.firstName != "First\(index)" {
                misplaced.append("\(key): \(pins[key]?.mapString ?? "none")")
            }
        }
        #expect(misplaced.isEmpty, "\(misplaced.prefix(5))")
    }

    /// Both commands follow the config's privacy keys: without `--precision` an import keeps each pin
    /// at `privacy.default` (or at its student's coarser choice) and `pins coarsen` re-stores at
    /// `privacy.default`; a level finer than `privacy.finest` is refused with a sentence naming the
    /// key, and changes nothing.
    @Test func importAndCoarsenFollowPrivacyDefaultAndFinest() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-privacy-keys")
        let (exactConfig, database) = try CLI.makeConfig(in: folder)
        try (try String(contentsOfFile: exactConfig, encoding: .utf8) + "privacy:\n  default: exact\n")
            .write(toFile: exactConfig, atomically: true, encoding: .utf8)
        let config = folder.file("strict.yaml")
        try "service:\n  backend: local\n  database: \(database)\nprivacy:\n  default: region\n  finest: city\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let file = folder.file("streets.csv")
        try Self.streets.write(toFile: file, atomically: true, encoding: .utf8)
        let state = try SQLiteStudentDirectory(path: database)
        try await state.setState("precision/k2", "country")
        try state.close()

        // privacy.default: exact keeps the street of a student who chose nothing.
        let exact = try await CLI.run(["pins", "import", "--config", exactConfig, file])
        #expect(exact.status == 0, "\(exact.output)")
        let before = try await Self.pins(database)
        #expect(before["k1"]?.mapString.hasPrefix("1600 Amphitheatre") == true)
        #expect(before["k2"]?.mapString == "United Kingdom", "the student chose country")

        // Finer than privacy.finest: refused, naming the key; nothing changes.
        let finerImport = try await CLI.run(["pins", "import", "--config", config, "--precision", "exact", file])
        #expect(finerImport.status != 0)
        #expect(finerImport.output.contains("privacy.finest is city"), "\(finerImport.output)")
        let finerCoarsen = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "exact"])
        #expect(finerCoarsen.status != 0)
        #expect(finerCoarsen.output.contains("privacy.finest is city"), "\(finerCoarsen.output)")
        #expect(try await Self.pins(database) == before)

        // No level given: privacy.default (region).
        let coarsened = try await CLI.run(["pins", "coarsen", "--config", config])
        #expect(coarsened.status == 0, "\(coarsened.output)")
        #expect(try await Self.pins(database)["k1"]?.mapString == "California, United States")
        let imported = try await CLI.run(["pins", "import", "--config", config, file])
        #expect(imported.status == 0, "\(imported.output)")
        let after = try await Self.pins(database)
        #expect(after["k1"]?.mapString == "California, United States", "kept at privacy.default")
        #expect(after["k2"]?.mapString == "United Kingdom")
    }

    @Test func coarsenReStoresOnlyThePinsFinerThanTheLevel() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-coarsen")
        let (config, database) = try CLI.makeConfig(in: folder)
        let file = folder.file("streets.csv")
        try Self.streets.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await CLI.run(["pins", "import", "--config", config, "--precision", "exact", file]).status == 0)
        let before = try await Self.pins(database)
        #expect(before["k1"]?.mapString.hasPrefix("1600 Amphitheatre") == true)

        let dryRun = try await CLI.run(["pins", "coarsen", "--config", config, "--dry-run"])
        #expect(
            dryRun.status == 0 && dryRun.output.contains("2 of 2 pins are finer than city level"), "\(dryRun.output)")
        #expect(try await Self.pins(database) == before, "a dry run changes nothing")

        let coarsened = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "region"])
        #expect(coarsened.status == 0 && coarsened.output.contains("Re-stored 2 of 2 pins"), "\(coarsened.output)")
        let after = try await Self.pins(database)
        #expect(after["k1"]?.mapString == "California, United States")
        #expect(after["k1"]?.objectId == before["k1"]?.objectId)
        #expect(after["k1"]?.updatedAt == before["k1"]?.updatedAt, "re-storing is not a new post")
        #expect(after["k2"]?.mapString.hasSuffix("United Kingdom") == true)

        // Already at region level: a second run at city or region finds nothing finer.
        let again = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "city"])
        #expect(again.output.contains("Re-stored 0 of 2 pins"), "\(again.output)")
        let exact = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "exact"])
        #expect(exact.status != 0 && exact.output.contains("would change nothing"), "\(exact.output)")
    }

    /// Trips are kept no finer than pins: a lasting trip at a street is re-stored at the level with
    /// its end unchanged; an ended one finer than the level is erased.
    @Test func coarsenReStoresLastingTripsAndErasesEndedOnes() async throws {
        let folder = try TemporaryDirectory(prefix: "pins-coarsen-trips")
        let (config, database) = try CLI.makeConfig(in: folder)
        let file = folder.file("streets.csv")
        try Self.streets.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await CLI.run(["pins", "import", "--config", config, "--precision", "exact", file]).status == 0)
        let street = Coordinate(latitude: 51.5238, longitude: -0.1586)
        let lasting = Trip(
            mapString: "221B Baker Street, London", coordinate: street, endsAt: Date().addingTimeInterval(3 * 86_400))
        // The ended trip is saved by a directory whose clock is ten days behind.
        let tenDaysAgo = Date().addingTimeInterval(-10 * 86_400)
        let ended = Trip(
            mapString: "5 Rue de Rivoli, Paris", coordinate: Coordinate(latitude: 48.8556, longitude: 2.3592),
            endsAt: tenDaysAgo.addingTimeInterval(86_400))
        let now = try SQLiteStudentDirectory(path: database)
        _ = try await now.setTrip(asTyped: lasting, ofAccount: "k1", session: nil)
        try now.close()
        let past = try SQLiteStudentDirectory(path: database, options: LocalDirectoryOptions(clock: { tenDaysAgo }))
        _ = try await past.setTrip(asTyped: ended, ofAccount: "k2", session: nil)
        try past.close()

        let dryRun = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "region", "--dry-run"])
        #expect(dryRun.output.contains("1 ended trips finer than that would be erased"), "\(dryRun.output)")
        let coarsened = try await CLI.run(["pins", "coarsen", "--config", config, "--precision", "region"])
        #expect(coarsened.status == 0, "\(coarsened.output)")
        let after = try await Self.pins(database)
        let trip = try #require(after["k1"]?.trip)
        #expect(abs(trip.endsAt.timeIntervalSince(lasting.endsAt)) < 0.001, "its end, to the millisecond kept")
        #expect(!trip.mapString.contains("Baker") && trip.coordinate != street, "\(trip)")
        #expect(after["k1"]?.mapString == "California, United States", "the home pin too")
        #expect(after["k2"]?.trip == nil, "the ended trip is erased")
        #expect(after["k2"]?.mapString.hasSuffix("United Kingdom") == true)
    }
}
