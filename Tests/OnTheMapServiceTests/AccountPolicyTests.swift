import Foundation
import Testing

@_spi(Testing) @testable import OnTheMapService

/// Accounts and sessions kept in memory, with a count of the calls the policy makes.
actor InMemoryAccountStorage: AccountStorage {
    private(set) var accounts: [String: (account: LocalAccount, hash: String)] = [:]
    private(set) var sessions: [String: StoredSession] = [:]
    /// The replacement hash of every `startSession` call, in order.
    private(set) var replacementHashes: [String?] = []
    private(set) var calls = 0

    func credentials(email: String) -> AccountCredentials? {
        calls += 1
        return accounts[email].map { AccountCredentials(accountKey: $0.account.accountKey, passwordHash: $0.hash) }
    }

    func startSession(_ session: StoredSession, replacementHash: String?) {
        calls += 1
        sessions = sessions.filter {
            $0.value.accountKey != session.accountKey || $0.value.expiresAt > session.createdAt
        }
        sessions[session.tokenDigest] = session
        replacementHashes.append(replacementHash)
        if let replacementHash,
            let email = accounts.first(where: { $0.value.account.accountKey == session.accountKey })?.key
        {
            accounts[email]?.hash = replacementHash
        }
    }

    func session(digest: String) -> StoredSession? {
        calls += 1
        return sessions[digest]
    }

    func hasAccount(key: String) -> Bool {
        calls += 1
        return accounts.values.contains { $0.account.accountKey == key }
    }

    func deleteSession(digest: String) {
        calls += 1
        sessions[digest] = nil
    }

    func deleteSessions(accountKey: String) -> Int {
        calls += 1
        let ended = sessions.filter { $0.value.accountKey == accountKey }.map(\.key)
        for digest in ended { sessions[digest] = nil }
        return ended.count
    }

    func insertAccount(_ account: LocalAccount, passwordHash: String) -> LocalAccount? {
        calls += 1
        guard accounts[account.email] == nil else { return nil }
        accounts[account.email] = (account, passwordHash)
        return account
    }

    func deleteAccount(email: String) -> Bool {
        calls += 1
        guard let removed = accounts.removeValue(forKey: email) else { return false }
        sessions = sessions.filter { $0.value.accountKey != removed.account.accountKey }
        return true
    }

    func replacePassword(email: String, passwordHash: String) -> Bool {
        calls += 1
        guard let entry = accounts[email] else { return false }
        accounts[email]?.hash = passwordHash
        sessions = sessions.filter { $0.value.accountKey != entry.account.accountKey }
        return true
    }

    func storedHash(of email: String) -> String? { accounts[email]?.hash }

    private(set) var links: [ServicesAccountLink] = []

    func servicesLink(network: String, foldedAccount: String) -> ServicesAccountLink? {
        calls += 1
        return links.first { $0.network == network && $0.foldedAccount == foldedAccount }
    }

    func servicesLinks(accountKey: String) -> [ServicesAccountLink] {
        calls += 1
        return links.filter { $0.accountKey == accountKey }
    }

    func insertServicesLink(_ link: ServicesAccountLink) -> ServicesLinkInsertion {
        calls += 1
        guard accounts.values.contains(where: { $0.account.accountKey == link.accountKey }) else { return .noAccount }
        if let taken = links.first(where: { $0.network == link.network && $0.foldedAccount == link.foldedAccount }) {
            return taken.accountKey == link.accountKey ? .alreadyLinked(taken) : .servicesAccountTaken(taken)
        }
        if let own = links.first(where: { $0.accountKey == link.accountKey && $0.network == link.network }) {
            return .classAccountLinked(own)
        }
        links.append(link)
        return .stored
    }

    func deleteServicesLink(accountKey: String, network: String) -> ServicesAccountLink? {
        calls += 1
        guard let index = links.firstIndex(where: { $0.accountKey == accountKey && $0.network == network }) else {
            return nil
        }
        return links.remove(at: index)
    }
}

/// A clock the tests set by hand, and the rounds of every PBKDF2 derivation.
final class PolicyTestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000.123_4)
    private var rounds: [Int] = []

    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    func record(_ count: Int) { lock.withLock { rounds.append(count) } }
    /// The rounds recorded since the last call.
    func takeRounds() -> [Int] {
        lock.withLock {
            defer { rounds.removeAll() }
            return rounds
        }
    }
}

@Suite("Account policy")
struct AccountPolicyTests {
    let log = PolicyTestLog()
    let storage = InMemoryAccountStorage()

    func policy(rounds: Int = 1_000, sessionLifetime: TimeInterval = 3_600) -> AccountPolicy<InMemoryAccountStorage> {
        let log = self.log
        return AccountPolicy(
            storage: storage,
            options: LocalDirectoryOptions(
                sessionLifetime: sessionLifetime,
                passwordHasher: PasswordHasher(uncheckedRounds: rounds).observingDerivations(log.record),
                clock: { log.now }))
    }

    @Test func aLoginStartsASessionOfTheLifetimeKnownToTheStorageOnlyByItsDigest() async throws {
        let policy = policy(sessionLifetime: 3_600)
        let account = try await policy.addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        let session = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        // Times are kept to the millisecond: 1_700_000_000.1234 is stored as 1_700_000_000.123.
        let now = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(account.createdAt == now)
        #expect(session.accountKey == account.accountKey)
        #expect(session.expiresAt == Date(timeIntervalSince1970: 1_700_003_600.123))
        let stored = await storage.sessions
        #expect(
            stored == [
                SessionToken.digest(session.sessionId): StoredSession(
                    tokenDigest: SessionToken.digest(session.sessionId), accountKey: account.accountKey,
                    createdAt: now, expiresAt: session.expiresAt)
            ])
        let again = try await policy.logIn(email: " ADA@example.com", password: "analytical engine")
        #expect(again.sessionId != session.sessionId)
        #expect(await storage.sessions.count == 2)
    }

    @Test func everyFailedLoginCostsOneDerivationOfTheHashersRounds() async throws {
        let policy = policy(rounds: 1_500)
        _ = try await policy.addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        #expect(log.takeRounds() == [1_500])
        for email in ["nobody@example.com", "ada@example.com", "not an email", "@", "ADA@EXAMPLE.COM"] {
            await #expect(throws: ServiceError.invalidCredentials, "\(email)") {
                try await policy.logIn(email: email, password: "wrong password")
            }
            #expect(log.takeRounds() == [1_500], "\(email)")
        }
        #expect(await storage.sessions.isEmpty)
        // The right password: one derivation as well, and no re-hash at the hasher's own rounds.
        _ = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        #expect(log.takeRounds() == [1_500])
        #expect(await storage.replacementHashes == [nil])
    }

    @Test func anEmptyEmailOrPasswordIsRejectedBeforeAnyWork() async throws {
        let policy = policy()
        for (email, password) in [("", "some password"), (" \t", "some password"), ("ada@example.com", "")] {
            do {
                _ = try await policy.logIn(email: email, password: password)
                Issue.record("\(email): logged in")
            } catch ServiceError.rejectedInput {
                // Rejected as input, not as credentials.
            } catch {
                Issue.record("\(email): \(error)")
            }
        }
        #expect(log.takeRounds().isEmpty)
        #expect(await storage.calls == 0)
    }

    @Test func aHashOfFewerRoundsIsReplacedAtTheNextSuccessfulLogin() async throws {
        _ = try await policy(rounds: 1_000).addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        let oldHash = try #require(await storage.storedHash(of: "ada@example.com"))
        #expect(oldHash.hasPrefix("pbkdf2-sha256$1000$"))

        let stronger = policy(rounds: 2_000)
        await #expect(throws: ServiceError.invalidCredentials) {
            try await stronger.logIn(email: "ada@example.com", password: "difference engine")
        }
        #expect(await storage.storedHash(of: "ada@example.com") == oldHash)

        _ = try await stronger.logIn(email: "ada@example.com", password: "analytical engine")
        let newHash = try #require(await storage.storedHash(of: "ada@example.com"))
        #expect(newHash.hasPrefix("pbkdf2-sha256$2000$"))
        #expect(PasswordHasher(uncheckedRounds: 2_000).verify("analytical engine", against: newHash))
        // Once re-hashed, a login leaves the hash alone.
        _ = try await stronger.logIn(email: "ada@example.com", password: "analytical engine")
        #expect(await storage.replacementHashes == [newHash, nil])
    }

    @Test func onlyALiveSessionOfItsOwnAccountPasses() async throws {
        let policy = policy(sessionLifetime: 60)
        let ada = try await policy.addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        let alan = try await policy.addAccount(
            email: "alan@example.com", password: "enigma machine", firstName: "Alan", lastName: "Turing")
        try await policy.requireLive(nil)
        let session = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        try await policy.requireLive(session)

        var claimed = session
        claimed.accountKey = alan.accountKey
        let madeUp = DirectorySession(accountKey: ada.accountKey, sessionId: "made-up", expiresAt: .distantFuture)
        for refused in [claimed, madeUp] {
            await #expect(throws: ServiceError.sessionExpired) { try await policy.requireLive(refused) }
        }
        // A refused claim does not end the real session.
        try await policy.requireLive(session)

        log.advance(by: 59.999)  // one millisecond before the end
        try await policy.requireLive(session)
        log.advance(by: 0.001)
        await #expect(throws: ServiceError.sessionExpired) { try await policy.requireLive(session) }
        #expect(await storage.sessions.isEmpty)
    }

    @Test func logOutEndsOnlyThatSessionAndNeverFails() async throws {
        let policy = policy()
        _ = try await policy.addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        let first = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        let second = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        try await policy.logOut(first)
        try await policy.logOut(first)
        await #expect(throws: ServiceError.sessionExpired) { try await policy.requireLive(first) }
        try await policy.requireLive(second)
    }

    @Test func aPinIsCheckedThenItsSessionThenItsOwner() async throws {
        let policy = policy()
        let ada = try await policy.addAccount(
            email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
        let session = try await policy.logIn(email: "ada@example.com", password: "analytical engine")
        let pin = PinDraft(
            uniqueKey: ada.accountKey, firstName: "Ada", lastName: "Lovelace", mapString: "London",
            mediaURL: "", coordinate: Coordinate(latitude: 51.5, longitude: -0.1))
        try await policy.requireMaySave(pin, session: session)
        try await policy.requireMaySave(pin, session: nil)

        var invalid = pin
        invalid.coordinate = Coordinate(latitude: 91, longitude: 0)
        let callsBefore = await storage.calls
        await #expect(throws: ServiceError.rejectedInput("The coordinate is not a valid latitude/longitude.")) {
            try await policy.requireMaySave(invalid, session: session)
        }
        #expect(await storage.calls == callsBefore)

        var someoneElses = pin
        someoneElses.uniqueKey = "another-account"
        await #expect(throws: ServiceError.rejectedInput("A pin can only be saved for your own account.")) {
            try await policy.requireMaySave(someoneElses, session: session)
        }
        let expired = DirectorySession(accountKey: "another-account", sessionId: "made-up", expiresAt: .distantFuture)
        await #expect(throws: ServiceError.sessionExpired) {
            try await policy.requireMaySave(someoneElses, session: expired)
        }
    }

    @Test func accountsAreNormalizedHashedAndUniqueByEmail() async throws {
        let policy = policy()
        let grace = try await policy.addAccount(
            email: "  Grace@Navy.MIL ", password: "cobol forever", firstName: " Grace ", lastName: "Hopper")
        #expect(grace.email == "grace@navy.mil")
        #expect(grace.firstName == "Grace")
        let hash = try #require(await storage.storedHash(of: "grace@navy.mil"))
        #expect(!hash.contains("cobol forever"))
        await #expect(throws: ServiceError.rejectedInput("An account with this email already exists.")) {
            try await policy.addAccount(
                email: "GRACE@navy.mil", password: "another password", firstName: "G", lastName: "H")
        }
        await #expect(throws: ServiceError.rejectedInput("The password must have at least 8 characters.")) {
            try await policy.addAccount(email: "new@navy.mil", password: "short", firstName: "N", lastName: "N")
        }

        let session = try await policy.logIn(email: "grace@navy.mil", password: "cobol forever")
        try await policy.removeAccount(email: "Grace@Navy.mil")
        await #expect(throws: ServiceError.sessionExpired) { try await policy.requireLive(session) }
        for email in ["grace@navy.mil", "not an email"] {
            await #expect(throws: ServiceError.notFound("No account with this email.")) {
                try await policy.removeAccount(email: email)
            }
        }
    }
}
