import Foundation
import Testing

@testable import OnTheMapService

@Suite("Password hashing and random ids")
struct PasswordHasherTests {
    @Test func hashHasTheSelfDescribingFormatAndVerifies() throws {
        let hasher = PasswordHasher()
        #expect(hasher.rounds == 210_000)
        // The production initializer never goes below the policy.
        #expect(PasswordHasher(rounds: 1_000).rounds == 210_000)
        #expect(PasswordHasher(rounds: 600_000).rounds == 600_000)
        let stored = try hasher.hash("correct horse battery staple")
        let parts = stored.split(separator: "$")
        #expect(parts.count == 4)
        #expect(parts[0] == "pbkdf2-sha256")
        #expect(parts[1] == "210000")
        #expect(Data(base64Encoded: String(parts[2]))?.count == 16)
        #expect(Data(base64Encoded: String(parts[3]))?.count == 32)
        #expect(hasher.verify("correct horse battery staple", against: stored))
        #expect(!hasher.verify("correct horse battery stapler", against: stored))
        #expect(!hasher.verify("", against: stored))
        #expect(!hasher.needsRehash(stored))
    }

    @Test func samePasswordGetsAFreshSaltEachTime() throws {
        let hasher = PasswordHasher(uncheckedRounds: 1_000)
        let first = try hasher.hash("s3cret-password")
        let second = try hasher.hash("s3cret-password")
        #expect(first != second)
        #expect(hasher.verify("s3cret-password", against: first))
        #expect(hasher.verify("s3cret-password", against: second))
    }

    /// Known answer computed independently (Python's hashlib.pbkdf2_hmac, SHA-256, 4096 rounds).
    @Test func matchesAnIndependentPBKDF2Implementation() {
        let stored = "pbkdf2-sha256$4096$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc="
        let hasher = PasswordHasher()
        #expect(hasher.verify("correct horse battery staple", against: stored))
        #expect(!hasher.verify("Correct horse battery staple", against: stored))
        // Hashes with fewer rounds than the hasher's still verify, and ask to be re-hashed.
        #expect(hasher.needsRehash(stored))
    }

    @Test(arguments: [
        "",
        "plaintext",
        "pbkdf2-sha256$4096$b250aGVtYXAtc2FsdC0xNg==",
        "pbkdf2-sha1$4096$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
        "pbkdf2-sha256$-5$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
        "pbkdf2-sha256$0$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
        "pbkdf2-sha256$99999999999$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
        "pbkdf2-sha256$4096$not base64!$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
        "pbkdf2-sha256$4096$b250aGVtYXAtc2FsdC0xNg==$c2hvcnQ=",
        "pbkdf2-sha256$4096$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=$extra",
        "pbkdf2-sha256$4 096$b250aGVtYXAtc2FsdC0xNg==$35W/wCT2rCMBcundu1hj+nBAewCWa0Zvb0dX1gJUqRc=",
    ])
    func malformedStoredHashesNeverVerify(stored: String) {
        let hasher = PasswordHasher(uncheckedRounds: 1_000)
        #expect(!hasher.verify("correct horse battery staple", against: stored))
        #expect(hasher.needsRehash(stored))
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([], []))
    }

    /// "Unknown email" (dummy verify) must cost about what "wrong password" (real verify) costs.
    @Test func dummyVerifyCostsAsMuchAsARealOne() throws {
        let hasher = PasswordHasher(uncheckedRounds: 50_000)
        let stored = try hasher.hash("the real password")
        let clock = ContinuousClock()
        var real: [Duration] = []
        var dummy: [Duration] = []
        for _ in 0..<9 {
            real.append(clock.measure { _ = hasher.verify("a wrong password", against: stored) })
            dummy.append(clock.measure { #expect(hasher.dummyVerify("a wrong password") == false) })
        }
        // The fastest run of each is the least disturbed by other work on the machine.
        let ratio = (dummy.min() ?? .zero) / (real.min() ?? .seconds(1))
        // Generous: the machine is shared; the exact proof (one derivation of the same rounds
        // either way) is in LoginTimingTests, which counts derivations.
        #expect(ratio > 0.33 && ratio < 3, "dummy/real time ratio \(ratio)")
    }

    @Test func randomIdsAreLongUrlSafeAndUnique() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = RandomID.make()
            #expect(id.count == 22)  // 128 bits
            #expect(id.allSatisfy(allowed.contains))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        let session = SessionToken.make()
        #expect(session.count == 43)  // 256 bits
        #expect(session.allSatisfy(allowed.contains))
        #expect(RandomID.make(byteCount: 4).count == 22)  // never below 128 bits
    }

    /// Ids made many at once (a file of new pins, read from the kernel in one go) are as long,
    /// as URL-safe and as unique as ids made one by one, and the bytes behind them are not zero.
    @Test func randomIdsMadeManyAtOnceAreLongUrlSafeAndUnique() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let ids = RandomID.make(count: 10_000)
        #expect(ids.count == 10_000)
        #expect(ids.allSatisfy { $0.count == 22 && $0.allSatisfy(allowed.contains) })
        #expect(Set(ids).count == 10_000)
        #expect(RandomID.make(count: 300, byteCount: 32).allSatisfy { $0.count == 43 })
        #expect(RandomID.make(count: 0).isEmpty)
        let bytes = RandomID.randomBytes(65_536)
        #expect(bytes.count == 65_536)
        #expect(bytes.filter { $0 == 0 }.count < 1_000)  // about 256 expected
    }

    @Test func base64URLEncoding() {
        #expect(RandomID.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(RandomID.base64URL([0x00]) == "AA")
        #expect(RandomID.base64URL(Array("hi?".utf8)) == "aGk_")
    }

    @Test func sessionDigestIsSHA256Hex() {
        // SHA-256("abc")
        #expect(
            SessionToken.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func generatedPasswordsAreTypable() {
        let password = RandomID.password()
        #expect(password.count == 16)
        #expect(password.allSatisfy { $0.isLetter || $0.isNumber })
        #expect(!password.contains("0") && !password.contains("O") && !password.contains("l"))
        #expect(RandomID.password() != password)
    }
}
