import Crypto
import Foundation
import _CryptoExtras

/// Password hashing with PBKDF2-HMAC-SHA256.
///
/// A stored hash describes itself: `pbkdf2-sha256$<rounds>$<salt>$<hash>` (standard base64,
/// 16-byte random salt, 32-byte hash), so the round count can rise later while old hashes still
/// verify. Comparison is constant-time; a malformed stored hash never verifies.
public struct PasswordHasher: Sendable {
    /// OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let defaultRounds = 210_000
    /// The most rounds a stored hash may ask for (guards against a hash that would take minutes).
    public static let maximumRounds = 10_000_000
    static let scheme = "pbkdf2-sha256"
    static let saltByteCount = 16
    static let hashByteCount = 32

    /// Rounds used for new hashes.
    public let rounds: Int
    /// Told the round count of every key derivation (tests count the work a login costs).
    private var derivationObserver: (@Sendable (Int) -> Void)?

    /// A hasher for new passwords with `rounds` iterations, never fewer than 210,000.
    public init(rounds: Int = PasswordHasher.defaultRounds) {
        self.init(uncheckedRounds: max(Self.defaultRounds, rounds))
    }

    /// A hasher with `uncheckedRounds` iterations (at least 1, at most ``maximumRounds``), even
    /// below the 210,000 that ``init(rounds:)`` never goes under.
    init(uncheckedRounds: Int) {
        self.rounds = min(max(1, uncheckedRounds), Self.maximumRounds)
    }

    /// The same hasher, telling `observer` the round count of every PBKDF2 derivation it runs
    /// (hash, verify and dummy verify alike). Tests use it to prove that a login with an unknown
    /// email costs exactly the work of one with a known email and a wrong password.
    @_spi(Testing)
    public func observingDerivations(_ observer: @escaping @Sendable (Int) -> Void) -> PasswordHasher {
        var copy = self
        copy.derivationObserver = observer
        return copy
    }

    /// Hashes a password with a fresh random salt.
    public func hash(_ password: String) throws -> String {
        let salt = RandomID.randomBytes(Self.saltByteCount)
        let derived = try derive(password, salt: salt, rounds: rounds)
        return "\(Self.scheme)$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(derived).base64EncodedString())"
    }

    /// True when `password` matches `stored`. A malformed `stored` value gives false.
    public func verify(_ password: String, against stored: String) -> Bool {
        guard let parsed = Self.parse(stored) else {
            // Same cost as a real check, so a damaged account looks like any other.
            return dummyVerify(password)
        }
        guard let derived = try? derive(password, salt: parsed.salt, rounds: parsed.rounds) else { return false }
        return ConstantTime.equal(derived, parsed.hash)
    }

    /// Spends the same time as ``verify(_:against:)`` on a real hash and returns false: call it
    /// when the account does not exist, so "unknown email" and "wrong password" look alike.
    @discardableResult
    public func dummyVerify(_ password: String) -> Bool {
        _ = try? derive(password, salt: Self.dummySalt, rounds: rounds)
        return false
    }

    /// True when a stored hash uses fewer rounds than this hasher (re-hash at next login).
    public func needsRehash(_ stored: String) -> Bool {
        guard let parsed = Self.parse(stored) else { return true }
        return parsed.rounds < rounds
    }

    // MARK: - In the background

    /// ``hash(_:)`` on a thread of its own: a derivation takes tens of milliseconds, too long to hold
    /// one of the few cooperative threads, where the bot's commands run.
    public func hashInBackground(_ password: String) async throws -> String {
        try await Self.inBackground { try hash(password) }
    }

    /// ``verify(_:against:)`` on a thread of its own (see ``hashInBackground(_:)``).
    public func verifyInBackground(_ password: String, against stored: String) async -> Bool {
        (try? await Self.inBackground { verify(password, against: stored) }) ?? false
    }

    /// ``dummyVerify(_:)`` on a thread of its own (see ``hashInBackground(_:)``).
    public func dummyVerifyInBackground(_ password: String) async {
        _ = try? await Self.inBackground { dummyVerify(password) }
    }

    /// Whether the caller runs on the threads that ``hashInBackground(_:)`` and its siblings use.
    public static var isOnDerivationThread: Bool { DispatchQueue.getSpecific(key: derivationQueueKey) == true }

    private static let derivationQueueKey = DispatchSpecificKey<Bool>()
    private static let derivationQueue: DispatchQueue = {
        let queue = DispatchQueue(label: "onthemap.password-derivation", qos: .userInitiated, attributes: .concurrent)
        queue.setSpecific(key: derivationQueueKey, value: true)
        return queue
    }()

    private static func inBackground<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            derivationQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    // MARK: - Internals

    private static let dummySalt: [UInt8] = Array(repeating: 0x5A, count: saltByteCount)

    private func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        derivationObserver?(rounds)
        return try Self.derive(password, salt: salt, rounds: rounds)
    }

    static func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key: SymmetricKey
        if rounds >= defaultRounds {
            key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: hashByteCount,
                rounds: rounds)
        } else {
            // Only for stored hashes made with fewer rounds (an older policy) and weaker hashers.
            key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: hashByteCount,
                unsafeUncheckedRounds: rounds)
        }
        return key.withUnsafeBytes { Array($0) }
    }

    static func parse(_ stored: String) -> (rounds: Int, salt: [UInt8], hash: [UInt8])? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == scheme,
            parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), parts[1].count <= 9,
            let rounds = Int(parts[1]), rounds >= 1, rounds <= maximumRounds,
            let salt = Data(base64Encoded: String(parts[2])), salt.count >= 8,
            let hash = Data(base64Encoded: String(parts[3])), hash.count == hashByteCount
        else { return nil }
        return (rounds, Array(salt), Array(hash))
    }
}
