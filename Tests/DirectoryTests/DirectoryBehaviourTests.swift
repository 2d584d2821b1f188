import BotTesting
import Foundation
import OnTheMapService
import PostgresDirectory
import SQLiteDirectory
import Testing

/// One behaviour suite, run against every local backend (SQLite and PostgreSQL).
@Suite("Local directory behaviour")
struct DirectoryBehaviourTests {
    // MARK: Login

    @Test(arguments: DirectoryKind.allCases)
    func loginSucceedsAndBadCredentialsLookAlike(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            let session = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            #expect(session.accountKey == account.accountKey)
            #expect(session.sessionId.count >= 22)
            #expect(abs(session.expiresAt.timeIntervalSince(fixture.clock.now) - 30 * 24 * 3600) < 1)
            // Each login is a new session.
            let again = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            #expect(again.sessionId != session.sessionId)

            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: "ada@example.com", password: "difference engine")
            }
            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: "nobody@example.com", password: "analytical engine")
            }
            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: "not an email", password: "analytical engine")
            }
            #expect(directory.signUpURL == nil)
            #expect(directory.backendName == kind.rawValue)
            try await directory.checkHealth()
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func emptyFieldsAreRejectedBeforeAnything(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            await expectRejected { try await directory.logIn(email: "", password: "secret password") }
            await expectRejected { try await directory.logIn(email: "   ", password: "secret password") }
            await expectRejected { try await directory.logIn(email: "ada@example.com", password: "") }
            await expectRejected {
                try await directory.addAccount(email: "", password: "long enough", firstName: "A", lastName: "B")
            }
            await expectRejected {
                try await directory.addAccount(email: "a@example.com", password: "", firstName: "A", lastName: "B")
            }
            await expectRejected {
                try await directory.addAccount(email: "a@example.com", password: "short", firstName: "A", lastName: "B")
            }
            await expectRejected {
                try await directory.addAccount(
                    email: "a@example.com", password: "long enough", firstName: " ", lastName: "")
            }
            await expectRejected {
                try await directory.addAccount(
                    email: "a@example.com", password: "long enough", firstName: "A\u{3}4", lastName: "B")
            }
            await expectRejected {
                try await directory.addAccount(
                    email: "no-at-sign", password: "long enough", firstName: "A", lastName: "B")
            }
            let accounts = try await directory.listAccounts()
            #expect(accounts.isEmpty)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func emailsAreCaseInsensitive(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "  Grace.Hopper@Navy.MIL ", password: "cobol forever", firstName: "Grace", lastName: "Hopper")
            #expect(account.email == "grace.hopper@navy.mil")
            let session = try await directory.logIn(email: "GRACE.HOPPER@navy.mil", password: "cobol forever")
            #expect(session.accountKey == account.accountKey)
            let reason = await expectRejected {
                try await directory.addAccount(
                    email: "grace.hopper@NAVY.mil", password: "another one", firstName: "G", lastName: "H")
            }
            #expect(reason?.contains("already exists") == true)
            #expect(try await directory.listAccounts().count == 1)
        }
    }

    // MARK: Sessions

    /// The level a pin is kept at is stored with it and read back by every way of reading pins: a
    /// create, an update, an import and the change feed each carry the level they were given.
    @Test(arguments: DirectoryKind.allCases)
    func aPinKeepsTheLevelItWasKeptAt(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            // Without place data the coarsener rounds to a grid: a street typed becomes a city cell.
            let grid = PinCoarsener(finder: nil, cityMinimumPopulation: 0)
            let typed = draft("k1", place: "221B Baker Street, London")
            let created = try await directory.createLocation(await grid.coarsen(typed, to: .city), session: nil)
            #expect(created.precision == .city)
            #expect(created.mapString != typed.mapString)
            #expect(try await directory.location(ofAccount: "k1")?.precision == .city)
            let moved = try await directory.updateLocation(
                objectId: created.objectId, with: await grid.coarsen(typed, to: .country), session: nil)
            #expect(moved.precision == .country)
            let page = try #require(try await directory.locationChanges(after: 0, limit: 10))
            let saved = page.changes.compactMap { change -> StudentLocation? in
                if case .saved(let pin) = change { return pin }
                return nil
            }
            #expect(saved.last?.precision == .country)
            _ = try await directory.importLocations([PinImportRecord(pin: await grid.coarsen(typed, to: .region))])
            #expect(try await directory.location(ofAccount: "k1")?.precision == .region)
            _ = try await directory.importLocations([await KeptAsTyped.record(typed)])
            #expect(try await directory.location(ofAccount: "k1")?.precision == .exact)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func sessionsExpire(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind, sessionLifetime: 60) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let session = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            #expect(try await directory.profile(accountKey: account.accountKey, session: session).firstName == "Alan")
            fixture.clock.advance(by: 59)
            _ = try await directory.createLocation(asTyped: draft(account.accountKey), session: session)
            fixture.clock.advance(by: 2)
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: account.accountKey, session: session)
            }
            await expectServiceError(.sessionExpired) {
                try await directory.savePin(asTyped: draft(account.accountKey, place: "Manchester"), session: session)
            }
            // A new login works again.
            let fresh = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            #expect(try await directory.profile(accountKey: account.accountKey, session: fresh).lastName == "Turing")
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func logoutEndsTheSession(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let session = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            let other = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            try await directory.logOut(session)
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: account.accountKey, session: session)
            }
            // Other sessions live on; logging out twice or an unknown session is not an error.
            _ = try await directory.profile(accountKey: account.accountKey, session: other)
            try await directory.logOut(session)
            try await directory.logOut(
                DirectorySession(accountKey: account.accountKey, sessionId: "made-up", expiresAt: Date()))
        }
    }

    /// A session kept by its digest alone (across a bot restart) is taken over with a new id: the
    /// old id no longer works, the new one does, with the same end; a digest of another account, an
    /// unknown one or one taken over already gives nothing.
    @Test(arguments: DirectoryKind.allCases)
    func aSessionIsResumedFromItsDigestWithANewId(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let session = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            let digest = SessionToken.digest(session.sessionId)
            #expect(try await directory.resumeSession(digest: digest, accountKey: "someone-else") == nil)
            let resumed = try #require(
                try await directory.resumeSession(digest: digest, accountKey: account.accountKey))
            #expect(resumed.sessionId != session.sessionId)
            #expect(resumed.accountKey == account.accountKey)
            #expect(resumed.expiresAt == session.expiresAt)
            _ = try await directory.profile(accountKey: account.accountKey, session: resumed)
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: account.accountKey, session: session)
            }
            #expect(try await directory.resumeSession(digest: digest, accountKey: account.accountKey) == nil)
            #expect(try await directory.resumeSession(digest: "0", accountKey: account.accountKey) == nil)
        }
    }

    /// A session opened without a password (what a sign-in link does) is a session of the usual
    /// lifetime for that account, live at once; an unknown or empty account key opens nothing.
    @Test(arguments: DirectoryKind.allCases)
    func aSessionOpensForAnAccountWithoutItsPassword(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let opened = try #require(try await directory.openSession(accountKey: account.accountKey))
            #expect(opened.accountKey == account.accountKey)
            let lifetime = opened.expiresAt.timeIntervalSince(fixture.clock.now)
            #expect(abs(lifetime - fixture.options.sessionLifetime) < 1)
            #expect(try await directory.session(id: opened.sessionId)?.accountKey == account.accountKey)
            _ = try await directory.profile(accountKey: account.accountKey, session: opened)
            #expect(try await directory.openSession(accountKey: "nobody") == nil)
            #expect(try await directory.openSession(accountKey: "") == nil)
            // Another instance on the same storage sees it.
            let another = try await fixture.openAnother()
            #expect(try await another.session(id: opened.sessionId)?.accountKey == account.accountKey)
        }
    }

    /// A state key taken is gone for everyone: of two instances taking it, one gets the value.
    @Test(arguments: DirectoryKind.allCases)
    func aStateKeyIsTakenOnce(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let first = fixture.directory
            let second = try await fixture.openAnother()
            try await first.setState("signin/k", "digest 1")
            #expect(try await first.takeState("absent") == nil)
            async let a = first.takeState("signin/k")
            async let b = second.takeState("signin/k")
            let taken = try await [a, b]
            #expect(taken.compactMap { $0 } == ["digest 1"], "\(taken)")
            #expect(try await first.state("signin/k") == nil)
        }
    }

    /// A student's data feed token given out by one instance opens on another over the same
    /// storage, as often as it is asked; replaced on one, the old token opens nowhere; revoked on
    /// one, the new one opens nowhere either.
    @Test(arguments: DirectoryKind.allCases)
    func aFeedTokenIsSharedByEveryInstance(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let first = DataFeedLinks(store: fixture.directory)
            let second = DataFeedLinks(store: try await fixture.openAnother())
            let token = try await first.issue(accountKey: "k-feed")
            for _ in 0..<2 { #expect(try await second.account(of: token) == "k-feed") }
            let newer = try await second.issue(accountKey: "k-feed")
            #expect(try await first.account(of: token) == nil)
            #expect(try await first.account(of: newer) == "k-feed")
            try await first.revoke(accountKey: "k-feed")
            #expect(try await second.account(of: newer) == nil)
            #expect(try await second.issuedAt(accountKey: "k-feed") == nil)
        }
    }

    /// A new password replaces the old one at once, ends every session of the account and keeps
    /// its pin; an unknown email or an unacceptable password changes nothing.
    @Test(arguments: DirectoryKind.allCases)
    func changingAPasswordEndsTheSessionsAndKeepsThePin(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let session = try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            _ = try await directory.createLocation(asTyped: draft(account.accountKey), session: session)

            try await directory.changePassword(email: "Alan@Example.com", newPassword: "bombe at bletchley")
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: account.accountKey, session: session)
            }
            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: "alan@example.com", password: "enigma machine")
            }
            let fresh = try await directory.logIn(email: "alan@example.com", password: "bombe at bletchley")
            #expect(fresh.accountKey == account.accountKey)
            let pins = try await directory.recentLocations(limit: 10, skip: 0)
            #expect(pins.map(\.uniqueKey) == [account.accountKey])

            await expectServiceError(.notFound("No account with this email.")) {
                try await directory.changePassword(email: "nobody@example.com", newPassword: "long enough too")
            }
            await expectRejected { try await directory.changePassword(email: "alan@example.com", newPassword: "short") }
            _ = try await directory.profile(accountKey: account.accountKey, session: fresh)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func profilesAndForgedSessions(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let ada = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            let alan = try await directory.addAccount(
                email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
            let profile = try await directory.profile(accountKey: ada.accountKey, session: nil)
            #expect(profile == StudentProfile(accountKey: ada.accountKey, firstName: "Ada", lastName: "Lovelace"))
            await expectServiceError(.notFound("No account with this key.")) {
                try await directory.profile(accountKey: "no-such-key", session: nil)
            }
            let session = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            // Any live session may read another student's profile.
            #expect(try await directory.profile(accountKey: alan.accountKey, session: session).firstName == "Alan")
            // A made-up session id, or a real one claimed for another account, is refused.
            let forged = DirectorySession(
                accountKey: ada.accountKey, sessionId: RandomID.make(byteCount: 32), expiresAt: .distantFuture)
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: ada.accountKey, session: forged)
            }
            var stolen = session
            stolen.accountKey = alan.accountKey
            await expectServiceError(.sessionExpired) {
                try await directory.createLocation(asTyped: draft(alan.accountKey), session: stolen)
            }
            // A session can only save its own account's pin.
            let reason = await expectRejected {
                try await directory.createLocation(asTyped: draft(alan.accountKey), session: session)
            }
            #expect(reason?.contains("own account") == true)
            #expect(try await directory.location(ofAccount: alan.accountKey) == nil)
        }
    }

    // MARK: Pins

    @Test(arguments: DirectoryKind.allCases)
    func createAndUpdateWithOnePinPerAccount(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let created = try await directory.createLocation(asTyped: draft("student-1"), session: nil)
            #expect(created.uniqueKey == "student-1")
            #expect(created.fullName == "Ada Lovelace")
            #expect(created.mapString == "London, UK")
            #expect(created.coordinate == Coordinate(latitude: 51.5074, longitude: -0.1278))
            #expect(created.createdAt == created.updatedAt)
            #expect(abs(created.createdAt.timeIntervalSince(fixture.clock.now)) < 0.001)
            #expect(try await directory.location(ofAccount: "student-1") == created)

            let reason = await expectRejected {
                try await directory.createLocation(asTyped: draft("student-1"), session: nil)
            }
            #expect(reason?.contains("already has a pin") == true)

            fixture.clock.advance(by: 90)
            let updated = try await directory.updateLocation(
                objectId: created.objectId,
                asTyped: draft(
                    "student-1", place: "  Paris, France ", link: "https://example.org", latitude: 48.8566,
                    longitude: 2.3522),
                session: nil)
            #expect(updated.objectId == created.objectId)
            #expect(updated.mapString == "Paris, France")
            #expect(updated.mediaURL == "https://example.org")
            #expect(updated.createdAt == created.createdAt)
            #expect(abs(updated.updatedAt.timeIntervalSince(created.updatedAt) - 90) < 0.001)
            #expect(try await directory.location(ofAccount: "student-1") == updated)
            #expect(try await directory.recentLocations(limit: 100, skip: 0) == [updated])

            await expectServiceError(.notFound("No pin with this objectId.")) {
                try await directory.updateLocation(objectId: "no-such-pin", asTyped: draft("student-1"), session: nil)
            }
            let other = try await directory.createLocation(asTyped: draft("student-2"), session: nil)
            // One account cannot take over another's pin.
            await expectRejected {
                try await directory.updateLocation(objectId: other.objectId, asTyped: draft("student-1"), session: nil)
            }
            #expect(try await directory.location(ofAccount: "nobody") == nil)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func savePinCreatesThenReplaces(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let account = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            let session = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            let (first, replacedFirst) = try await directory.savePin(
                asTyped: draft(account.accountKey), session: session)
            #expect(!replacedFirst)
            fixture.clock.advance(by: 5)
            let (second, replacedSecond) = try await directory.savePin(
                asTyped: draft(account.accountKey, place: "Paris"), session: session)
            #expect(replacedSecond)
            #expect(second.objectId == first.objectId)
            #expect(second.mapString == "Paris")
            #expect(try await directory.recentLocations(limit: 10, skip: 0).count == 1)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func recentPinsAreNewestUpdateFirstWithLimitAndSkip(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            var pins: [StudentLocation] = []
            for number in 0..<6 {
                pins.append(
                    try await directory.createLocation(asTyped: draft("s\(number)", first: "S\(number)"), session: nil))
                fixture.clock.advance(by: 10)
            }
            var order = try await directory.recentLocations(limit: 100, skip: 0).map(\.uniqueKey)
            #expect(order == ["s5", "s4", "s3", "s2", "s1", "s0"])
            // Updating an old pin brings it to the top.
            _ = try await directory.updateLocation(objectId: pins[1].objectId, asTyped: draft("s1"), session: nil)
            order = try await directory.recentLocations(limit: 100, skip: 0).map(\.uniqueKey)
            #expect(order == ["s1", "s5", "s4", "s3", "s2", "s0"])
            #expect(try await directory.recentLocations(limit: 2, skip: 0).map(\.uniqueKey) == ["s1", "s5"])
            #expect(try await directory.recentLocations(limit: 2, skip: 3).map(\.uniqueKey) == ["s3", "s2"])
            #expect(try await directory.recentLocations(limit: 10, skip: 5).map(\.uniqueKey) == ["s0"])
            #expect(try await directory.recentLocations(limit: 10, skip: 6).isEmpty)
            #expect(try await directory.recentLocations(limit: 0, skip: 0).isEmpty)
            // With the clock standing still, the later save still comes first.
            _ = try await directory.createLocation(asTyped: draft("t1"), session: nil)
            _ = try await directory.createLocation(asTyped: draft("t2"), session: nil)
            _ = try await directory.updateLocation(objectId: pins[0].objectId, asTyped: draft("s0"), session: nil)
            #expect(try await directory.recentLocations(limit: 3, skip: 0).map(\.uniqueKey) == ["s0", "t2", "t1"])
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func invalidPinsAreRejectedAndChangeNothing(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let bad: [PinDraft] = [
                draft("k", first: "", last: " "),
                draft("k", place: ""),
                draft("k", place: "   "),
                draft("k", latitude: 91),
                draft("k", longitude: -180.5),
                draft("k", latitude: .nan),
                draft("k", link: "https://example.com/" + String(repeating: "a", count: 2_029)),
                draft("k", place: "Lon\u{0}don"),
                draft("k", first: "Ada\u{3}4"),
                draft("k", link: "https://example.com/\r\nPRIVMSG #class :hi"),
                draft("", place: "Somewhere"),
            ]
            for pin in bad {
                await expectRejected { try await directory.createLocation(asTyped: pin, session: nil) }
            }
            #expect(try await directory.recentLocations(limit: 100, skip: 0).isEmpty)
            // Exactly 2048 bytes is fine; so is an empty link and a name with only a last name.
            let longest = "https://example.com/" + String(repeating: "a", count: 2_028)
            #expect(longest.utf8.count == 2_048)
            let saved = try await directory.createLocation(asTyped: draft("k", first: "", link: longest), session: nil)
            #expect(saved.mediaURL == longest)
            await expectRejected {
                try await directory.updateLocation(
                    objectId: saved.objectId, asTyped: draft("k", latitude: 100), session: nil)
            }
            #expect(try await directory.location(ofAccount: "k") == saved)
        }
    }

    // MARK: Accounts

    @Test(arguments: DirectoryKind.allCases)
    func accountsCanBeAddedListedAndRemoved(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let zed = try await directory.addAccount(
                email: "zed@example.com", password: "password zed", firstName: "Zed", lastName: "Z")
            let amy = try await directory.addAccount(
                email: "amy@example.com", password: "password amy", firstName: " Amy ", lastName: "A")
            #expect(amy.firstName == "Amy")
            #expect(zed.accountKey != amy.accountKey)
            let listed = try await directory.listAccounts()
            #expect(listed.map(\.email) == ["amy@example.com", "zed@example.com"])
            #expect(listed.first?.accountKey == amy.accountKey)
            #expect(listed.first?.createdAt == amy.createdAt)

            let session = try await directory.logIn(email: "zed@example.com", password: "password zed")
            _ = try await directory.createLocation(asTyped: draft(zed.accountKey), session: session)
            try await directory.removeAccount(email: "ZED@example.com")
            #expect(try await directory.listAccounts().map(\.email) == ["amy@example.com"])
            #expect(try await directory.location(ofAccount: zed.accountKey) == nil)
            await expectServiceError(.sessionExpired) {
                try await directory.profile(accountKey: zed.accountKey, session: session)
            }
            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: "zed@example.com", password: "password zed")
            }
            await expectServiceError(.notFound("No account with this email.")) {
                try await directory.removeAccount(email: "zed@example.com")
            }
            // The email is free again.
            _ = try await directory.addAccount(
                email: "zed@example.com", password: "password zed 2", firstName: "Zed", lastName: "Again")
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func rosterImportReportsEveryLine(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            _ = try await directory.addAccount(
                email: "existing@example.com", password: "already here", firstName: "Ex", lastName: "Isting")
            let csv = #"""
                email,first_name,last_name,password
                ada@example.com,Ada,"Lovelace, Countess",analytical engine
                "Grace@Example.com","Grace ""Amazing""",Hopper,
                existing@example.com,Ex,Isting,whatever123

                not-an-email,No,Body,password123
                ada@EXAMPLE.com,Ada,Again,password123
                alan@example.com,Alan
                linus@example.com,Linus,"Torvalds
                Jr",kernel hacker
                short@example.com,Short,Pass,abc
                eve@example.com,Eve,"Unclosed,password123
                """#
            let results = try await directory.importRoster(csv: csv)
            #expect(results.map(\.line) == [2, 3, 4, 6, 7, 8, 9, 11, 12])
            guard results.count == 9 else { return }

            guard case .added(let ada, let adaPassword, _) = results[0].outcome else {
                Issue.record("line 2: \(results[0].outcome)")
                return
            }
            #expect(ada.lastName == "Lovelace, Countess")
            #expect(adaPassword == nil)

            guard case .added(let grace, let generated?, _) = results[1].outcome else {
                Issue.record("line 3: \(results[1].outcome)")
                return
            }
            #expect(grace.email == "grace@example.com")
            #expect(grace.firstName == "Grace \"Amazing\"")
            #expect(generated.count >= 12)
            let session = try await directory.logIn(email: "grace@example.com", password: generated)
            #expect(session.accountKey == grace.accountKey)

            #expect(results[2].outcome == .skippedDuplicate(email: "existing@example.com"))
            guard case .failed = results[3].outcome else {
                Issue.record("line 6: \(results[3].outcome)")
                return
            }
            #expect(results[4].outcome == .skippedDuplicate(email: "ada@example.com"))
            guard case .failed(let fieldCount) = results[5].outcome else {
                Issue.record("line 8: \(results[5].outcome)")
                return
            }
            #expect(fieldCount.contains("expected 4 fields"))
            // A quoted field may span lines (the next record is then on line 11), but a name must
            // not contain a line break.
            guard case .failed(let lineBreak) = results[6].outcome else {
                Issue.record("line 9: \(results[6].outcome)")
                return
            }
            #expect(lineBreak.contains("hidden characters (control"))
            guard case .failed(let tooShort) = results[7].outcome else {
                Issue.record("line 11: \(results[7].outcome)")
                return
            }
            #expect(!tooShort.contains("abc"))
            guard case .failed = results[8].outcome else {
                Issue.record("line 12: \(results[8].outcome)")
                return
            }

            #expect(
                try await directory.listAccounts().map(\.email) == [
                    "ada@example.com", "existing@example.com", "grace@example.com",
                ])
            _ = try await directory.logIn(email: "ada@example.com", password: "analytical engine")

            // Without a password column every account gets a generated password.
            let noPasswords = try await directory.importRoster(
                csv: "first_name,last_name,email\r\nBob,B,bob@example.com\r\n")
            guard case .added(_, let bobPassword?, _) = noPasswords.first?.outcome else {
                Issue.record("no generated password: \(noPasswords)")
                return
            }
            _ = try await directory.logIn(email: "bob@example.com", password: bobPassword)

            await expectRejected { try await directory.importRoster(csv: "mail,name\nx@y.z,X\n") }
            await expectRejected { try await directory.importRoster(csv: "") }
        }
    }

    // MARK: Bot state and several instances

    @Test(arguments: DirectoryKind.allCases)
    func botStateRoundTrips(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            #expect(try await directory.state("announce.last") == nil)
            try await directory.setState("announce.last", "2024-01-01T00:00:00Z")
            #expect(try await directory.state("announce.last") == "2024-01-01T00:00:00Z")
            try await directory.setState("announce.last", "later ✓")
            #expect(try await directory.state("announce.last") == "later ✓")
            let another = try await fixture.openAnother()
            #expect(try await another.state("announce.last") == "later ✓")
            try await another.setState("announce.last", nil)
            #expect(try await directory.state("announce.last") == nil)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func twoInstancesShareOneStore(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let first = fixture.directory
            let second = try await fixture.openAnother()
            let pin = try await first.createLocation(asTyped: draft("shared-1"), session: nil)
            #expect(try await second.location(ofAccount: "shared-1") == pin)
            _ = try await second.addAccount(
                email: "two@example.com", password: "second instance", firstName: "Two", lastName: "Instances")
            _ = try await first.logIn(email: "two@example.com", password: "second instance")

            // Both write at once: every pin arrives, and one-pin-per-account holds across instances.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<20 {
                    let target = number.isMultiple(of: 2) ? first : second
                    group.addTask { _ = try await target.createLocation(asTyped: draft("c\(number)"), session: nil) }
                }
                try await group.waitForAll()
            }
            #expect(try await first.recentLocations(limit: 100, skip: 0).count == 21)
            #expect(try await second.recentLocations(limit: 100, skip: 0).count == 21)
            let results = await withTaskGroup(of: Bool.self) { group in
                for target in [first, second, first, second] {
                    group.addTask { (try? await target.createLocation(asTyped: draft("race"), session: nil)) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    /// The full-strength KDF (210,000 rounds) through a real login.
    @Test func defaultHasherLogsIn() async throws {
        try await DirectoryFixture.with(.sqlite, hasher: PasswordHasher()) { fixture in
            _ = try await fixture.directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            _ = try await fixture.directory.logIn(email: "ada@example.com", password: "analytical engine")
            await expectServiceError(.invalidCredentials) {
                try await fixture.directory.logIn(email: "ada@example.com", password: "wrong password")
            }
        }
    }
}
