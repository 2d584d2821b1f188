import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// `!unpost`: a logged-in student takes their own pin off the map, privately, after seeing it
/// and confirming; afterwards `!where`, `!near` and `!list` no longer know it, on this bot at once
/// and on another bot over the same directory at its next refresh.
@Suite struct UnpostTests {
    static func janeWithAPin() async throws -> (ClassFixture, StudentLocation) {
        let fixture = try ClassFixture()
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle, WA")
        let pin = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA", at: seattle)
        try await fixture.addPin(
            email: "tom@class.test", first: "Tom", last: "Roe", place: "Tacoma, WA",
            at: SharedGazetteer.coordinate(of: "Tacoma, WA"))
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        return (fixture, pin)
    }

    @Test func showsThePinAsksForConfirmThenRemovesItEverywhere() async throws {
        let (fixture, pin) = try await Self.janeWithAPin()
        #expect(await fixture.dm("!where Doe", as: "bob").first?.hasPrefix("Jane Doe — Seattle, WA") == true)

        #expect(
            await fixture.dm("!unpost", as: "jane") == [
                "This takes your pin off the map: Jane Doe — Seattle, WA. "
                    + "Say !unpost confirm to remove it; nothing changes until you do."
            ])
        #expect(try await fixture.sqlite.location(ofAccount: pin.uniqueKey) == pin)
        #expect(
            await fixture.dm("!unpost now", as: "jane") == [
                "Usage: !unpost, then !unpost confirm to take your pin off the map."
            ])
        #expect(try await fixture.sqlite.location(ofAccount: pin.uniqueKey) == pin)

        #expect(
            await fixture.dm("!unpost confirm", as: "jane") == [
                "Your pin is off the map (Seattle, WA). !post <place> puts you back on it."
            ])
        #expect(try await fixture.sqlite.location(ofAccount: pin.uniqueKey) == nil)
        #expect(
            await fixture.dm("!where Doe", as: "bob") == [
                "Nobody called \"Doe\" is on the map (and no one logged in uses that nick)."
            ])
        #expect(await fixture.dm("!where jane", as: "bob") == ["jane is Jane Doe and has no pin yet."])
        let near = await fixture.dm("!near Seattle", as: "bob").joined(separator: "\n")
        #expect(near.contains("Tom Roe") && !near.contains("Jane Doe"), "\(near)")
        let list = await fixture.dm("!list", as: "bob").joined(separator: "\n")
        #expect(list.contains("Tom Roe") && !list.contains("Jane Doe"), "\(list)")
        // Nothing left to remove.
        #expect(await fixture.dm("!unpost confirm", as: "jane") == ["You have no pin on the map."])
        #expect(await fixture.dm("!unpost", as: "jane") == ["You have no pin on the map."])
    }

    @Test func onlyPrivatelyAndOnlyLoggedIn() async throws {
        let (fixture, pin) = try await Self.janeWithAPin()
        let inChannel = await fixture.say("!unpost confirm", as: "jane").map(\.text)
        #expect(!inChannel.isEmpty && !inChannel.contains { $0.contains("off the map (") }, "\(inChannel)")
        let stranger = await fixture.dm("!unpost confirm", as: "mallory")
        #expect(!stranger.isEmpty && !stranger.contains { $0.contains("off the map (") }, "\(stranger)")
        #expect(try await fixture.sqlite.location(ofAccount: pin.uniqueKey) == pin)
    }

    @Test func anotherBotOnTheSameDirectoryForgetsThePinAtItsNextRefresh() async throws {
        let (fixture, pin) = try await Self.janeWithAPin()
        let other = try SQLiteStudentDirectory(path: fixture.folder.file("class.sqlite"))
        let otherMap = ClassMap(directory: other)
        #expect(try await otherMap.pins(named: "Jane").map(\.objectId) == [pin.objectId])
        _ = await fixture.dm("!unpost confirm", as: "jane")
        try await otherMap.refresh()
        #expect(try await otherMap.pins(named: "Jane").isEmpty)
        #expect(try await otherMap.recent().map(\.firstName) == ["Tom"])
        try other.close()
    }

    @Test func aDirectoryWithoutDeleteSaysSoAndChangesNothing() async throws {
        let folder = try TemporaryDirectory(prefix: "unpost-udacity")
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        _ = try await sqlite.addAccount(
            email: "jane@class.test", password: ClassFixture.password, firstName: "Jane", lastName: "Doe")
        // Logins work, but no account directory is given: as with the Udacity-compatible API.
        let services = ClassServices(
            directory: sqlite, trips: sqlite, geocoder: SharedGazetteer.geocoder, places: SharedGazetteer.geocoder)
        let bot = TestBot(
            plugins: ClassPlugins.make(enabled: ["login", "post"], services: services),
            gate: services.logins)
        #expect(
            await bot.dm("!login jane@class.test \(ClassFixture.password)", as: "jane").first?.text.hasPrefix(
                "Welcome") == true)
        #expect(
            await bot.dm("!unpost confirm", as: "jane").map(\.text) == [
                "This class's directory is the Udacity-compatible API, which has no way to delete a pin, so nothing "
                    + "was removed. "
                    + "You can still move it with !post <place>."
            ])
    }
}
