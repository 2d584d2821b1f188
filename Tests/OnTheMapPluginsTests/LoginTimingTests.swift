import BotKit
import BotTesting
import Foundation
import SQLiteDirectory
import Testing

@_spi(Testing) @testable import OnTheMapService

/// No timing oracle on the local backend: a login with an unknown email costs the same work as
/// one with a known email and a wrong password. Proved by counting PBKDF2 derivations (exact),
/// then checked with a clock (medians, generous bounds, both directions).
@Suite(.tags(.runsAlone)) struct LoginTimingTests {
    /// Records the round count of every PBKDF2 derivation.
    /// (Behind `NSLock`, a pthread lock that ThreadSanitizer understands: derivations run on other threads.)
    final class DerivationLog: @unchecked Sendable {
        private let lock = NSLock()
        private var rounds: [Int] = []
        func record(_ count: Int) { lock.withLock { rounds.append(count) } }
        /// Returns and forgets what was recorded.
        func take() -> [Int] {
            lock.withLock {
                defer { rounds.removeAll() }
                return rounds
            }
        }
    }

    static func directory(_ folder: TemporaryDirectory, hasher: PasswordHasher) throws
        -> SQLiteStudentDirectory
    {
        try SQLiteStudentDirectory(
            path: folder.file("timing.sqlite"), options: LocalDirectoryOptions(passwordHasher: hasher))
    }

    @Test func everyFailedLoginCostsExactlyOneDerivationOfTheSameRounds() async throws {
        let log = DerivationLog()
        let hasher = PasswordHasher(uncheckedRounds: 4_096).observingDerivations(log.record)
        let folder = try TemporaryDirectory(prefix: "timing")
        let directory = try Self.directory(folder, hasher: hasher)
        _ = try await directory.addAccount(
            email: "jane@class.test", password: "the-right-one", firstName: "Jane", lastName: "Doe")
        #expect(log.take() == [4_096])

        let attempts: [(String, String)] = [
            ("unknown email", "nobody@class.test"),
            ("known email, wrong password", "jane@class.test"),
            ("known email in other case", "JANE@Class.Test"),
            ("not an email at all", "not-an-email"),
            ("2 KB email", String(repeating: "x", count: 2_000) + "@class.test"),
        ]
        for (label, email) in attempts {
            await #expect(throws: ServiceError.invalidCredentials, "\(label)") {
                try await directory.logIn(email: email, password: "a-wrong-password")
            }
            #expect(log.take() == [4_096], "\(label)")
        }
        // A damaged stored hash costs the same too.
        #expect(!hasher.verify("a-wrong-password", against: "pbkdf2-sha256$x$damaged"))
        #expect(log.take() == [4_096])
        // And the right password: the same single derivation (no re-hash at equal rounds).
        _ = try await directory.logIn(email: "jane@class.test", password: "the-right-one")
        #expect(log.take() == [4_096])
    }

    /// A derivation takes tens of milliseconds: it must never hold the caller's thread (in the bot, one
    /// of the few cooperative threads that run the commands).
    @Test func everyDerivationRunsOnTheDerivationThreads() async throws {
        let places = DerivationLog()
        let hasher = PasswordHasher(uncheckedRounds: 2_048).observingDerivations { _ in
            places.record(PasswordHasher.isOnDerivationThread ? 1 : 0)
        }
        let folder = try TemporaryDirectory(prefix: "derive")
        let directory = try Self.directory(folder, hasher: hasher)
        _ = try await directory.addAccount(
            email: "jane@class.test", password: "the-right-one", firstName: "Jane", lastName: "Doe")
        _ = try await directory.logIn(email: "jane@class.test", password: "the-right-one")
        for (email, password) in [("jane@class.test", "wrong-one"), ("ghost@class.test", "any-one"), ("no", "x")] {
            await #expect(throws: ServiceError.self) { try await directory.logIn(email: email, password: password) }
        }
        #expect(!PasswordHasher.isOnDerivationThread)
        #expect(places.take() == Array(repeating: 1, count: 5))
    }

    @Test func throughTheBotUnknownAndKnownEmailsCostTheSame() async throws {
        let log = DerivationLog()
        let fixture = try ClassFixture(
            passwordHasher: PasswordHasher(uncheckedRounds: 2_000).observingDerivations(log.record))
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        _ = log.take()
        let unknown = await fixture.logIn("eve", email: "ghost@class.test", password: "guess-one")
        let unknownWork = log.take()
        let known = await fixture.logIn("eve", email: "jane@class.test", password: "guess-two")
        let knownWork = log.take()
        #expect(unknown == known)
        #expect(unknownWork == [2_000])
        #expect(knownWork == unknownWork)
    }

    /// The same with the real 210,000-round hasher and a clock. The machine is shared and loaded,
    /// so: medians of 9 interleaved runs each, and only a gross difference fails (a missing dummy
    /// verification makes the unknown-email login thousands of times faster).
    @Test(.timeLimit(.minutes(3))) func measuredTimesAreAlike() async throws {
        let folder = try TemporaryDirectory(prefix: "timing-real")
        let directory = try Self.directory(folder, hasher: PasswordHasher())
        _ = try await directory.addAccount(
            email: "jane@class.test", password: "the-right-one", firstName: "Jane", lastName: "Doe")
        let clock = ContinuousClock()
        var unknown: [Duration] = []
        var known: [Duration] = []
        for _ in 0..<9 {
            unknown.append(
                await clock.measure {
                    _ = try? await directory.logIn(email: "nobody@class.test", password: "guess")
                })
            known.append(
                await clock.measure {
                    _ = try? await directory.logIn(email: "jane@class.test", password: "guess")
                })
        }
        let medianUnknown = unknown.sorted()[4]
        let medianKnown = known.sorted()[4]
        #expect(medianUnknown * 4 > medianKnown, "unknown \(medianUnknown) vs known \(medianKnown)")
        #expect(medianKnown * 4 > medianUnknown, "known \(medianKnown) vs unknown \(medianUnknown)")
    }
}
