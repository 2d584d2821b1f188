import Crypto
import _CryptoExtras

/// The client side of a SCRAM exchange (RFC 5802) with SHA-256 (RFC 7677) or SHA-512, without
/// channel binding (gs2 header `n,,`).
///
/// A pure value: ``clientFirst()``, then ``clientFinal(answering:)`` for the server-first message,
/// then ``verify(serverFinal:)``, which succeeds only when the server proved it knows the password.
/// The password itself is never sent: only a proof derived from it and the server's salt.
/// Every server message is checked strictly (the nonce must extend ours, the salt must be base64,
/// the iteration count must lie in ``iterationRange``); anything else is a ``Failure``.
struct SCRAMClient: Sendable {
    enum Hash: Sendable, Equatable {
        case sha256, sha512
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The user name or password cannot be prepared (SASLprep refuses it).
        case unusableCredentials(String)
        /// A server message that is not what SCRAM allows at this step.
        case malformed(String)
        /// The server's nonce does not start with the client's (a replay or an impostor).
        case nonceNotExtended
        /// An iteration count outside ``iterationRange``.
        case iterationCount(String)
        /// The server reported an error (`e=`).
        case serverError(String)
        /// The server's signature is wrong: it does not know the password.
        case badServerSignature

        var description: String {
            switch self {
            case .unusableCredentials(let what): "the \(what) cannot be used with SCRAM"
            case .malformed(let what): "malformed SCRAM message from the server: \(what)"
            case .nonceNotExtended: "the server's SCRAM nonce does not extend the client's"
            case .iterationCount(let count): "the server asked for an unacceptable SCRAM iteration count (\(count))"
            case .serverError(let error): "the server refused SCRAM authentication: \(error)"
            case .badServerSignature: "the server's SCRAM signature is wrong: it does not know the password"
            }
        }
    }

    /// Iteration counts accepted: RFC 7677's minimum up to a bound that keeps one derivation short.
    static let iterationRange = 4096...1_000_000

    let hash: Hash
    private let password: [UInt8]
    private let clientNonce: String
    private let clientFirstBare: String
    private var expectedServerSignature: [UInt8]?

    /// Prepares an exchange for `username` and `password` with the client nonce `nonce` (normally
    /// ``randomNonce()``).
    init(hash: Hash, username: String, password: String, nonce: String) throws(Failure) {
        guard let preparedName = SASLprep.prepare(username) else { throw .unusableCredentials("user name") }
        guard let preparedPassword = SASLprep.prepare(password), !preparedPassword.isEmpty else {
            throw .unusableCredentials("password")
        }
        self.hash = hash
        self.password = Array(preparedPassword.utf8)
        clientNonce = nonce
        clientFirstBare = "n=\(Self.escape(preparedName)),r=\(clientNonce)"
    }

    /// The client-first message.
    func clientFirst() -> [UInt8] {
        Array(("n,," + clientFirstBare).utf8)
    }

    /// The client-final message (with the proof) for the server-first message `serverFirst`.
    mutating func clientFinal(answering serverFirst: [UInt8]) throws(Failure) -> [UInt8] {
        guard let text = Self.text(serverFirst) else {
            throw .malformed("server-first is not UTF-8 text")
        }
        let attributes = try Self.attributes(of: text)
        if let first = attributes.first, first.name == "e" { throw .serverError(first.value) }
        guard attributes.count >= 3, attributes[0].name == "r", attributes[1].name == "s", attributes[2].name == "i"
        else {
            throw .malformed("server-first is not r=…,s=…,i=…")
        }
        if attributes.dropFirst(3).contains(where: { $0.name == "m" }) {
            throw .malformed("server-first has a mandatory extension")
        }
        let nonce = attributes[0].value
        guard nonce.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E && $0 != 0x2C }) else {
            throw .malformed("the nonce has characters SCRAM does not allow")
        }
        guard nonce.hasPrefix(clientNonce), nonce.utf8.count > clientNonce.utf8.count else {
            throw .nonceNotExtended
        }
        guard let salt = SASLPayload.decodeBase64(attributes[1].value), !salt.isEmpty else {
            throw .malformed("the salt is not base64")
        }
        let countText = attributes[2].value
        guard !countText.isEmpty, countText.utf8.count <= 9, countText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let iterations = Int(countText)
        else {
            throw .malformed("the iteration count is not a number")
        }
        guard Self.iterationRange.contains(iterations) else { throw .iterationCount(countText) }

        let withoutProof = "c=biws,r=\(nonce)"
        let authMessage = Array("\(clientFirstBare),\(text),\(withoutProof)".utf8)
        let salted = try saltedPassword(salt: salt, iterations: iterations)
        let clientKey = hmac(key: salted, Array("Client Key".utf8))
        let clientSignature = hmac(key: digest(clientKey), authMessage)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        expectedServerSignature = hmac(key: hmac(key: salted, Array("Server Key".utf8)), authMessage)
        return Array("\(withoutProof),p=\(SASLPayload.base64(proof))".utf8)
    }

    /// Checks the server-final message: `v=` with the right signature, else a ``Failure``.
    func verify(serverFinal: [UInt8]) throws(Failure) {
        guard let expected = expectedServerSignature else { throw .malformed("server-final before server-first") }
        guard let text = Self.text(serverFinal) else {
            throw .malformed("server-final is not UTF-8 text")
        }
        let attributes = try Self.attributes(of: text)
        guard let first = attributes.first else { throw .malformed("empty server-final") }
        switch first.name {
        case "e":
            throw .serverError(first.value)
        case "v":
            guard let signature = SASLPayload.decodeBase64(first.value) else {
                throw .malformed("the server signature is not base64")
            }
            guard signature.count == expected.count,
                zip(signature, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0
            else {
                throw .badServerSignature
            }
        default:
            throw .malformed("server-final is neither v=… nor e=…")
        }
    }

    // MARK: Primitives

    private func saltedPassword(salt: [UInt8], iterations: Int) throws(Failure) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: salt, using: hash == .sha256 ? .sha256 : .sha512,
                outputByteCount: hash == .sha256 ? SHA256.byteCount : SHA512.byteCount,
                unsafeUncheckedRounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .malformed("the key cannot be derived: \(error)")
        }
    }

    private func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let symmetricKey = SymmetricKey(data: key)
        switch hash {
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: data, using: symmetricKey))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: data, using: symmetricKey))
        }
    }

    private func digest(_ data: [UInt8]) -> [UInt8] {
        switch hash {
        case .sha256: Array(SHA256.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    // MARK: Syntax

    /// `a=value,b=value`: every part must be one letter, `=`, and a value.
    private static func attributes(of text: String) throws(Failure) -> [(name: Character, value: String)] {
        var result: [(name: Character, value: String)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard part.count >= 2, let name = part.first, name.isASCII, name.isLetter,
                part[part.index(after: part.startIndex)] == "="
            else {
                throw .malformed("\"\(part.prefix(16))\" is not an attribute")
            }
            result.append((name, String(part.dropFirst(2))))
        }
        return result
    }

    /// The saslname escaping of RFC 5802: `=` → `=3D`, `,` → `=2C`.
    static func escape(_ name: String) -> String {
        var escaped = ""
        for character in name {
            switch character {
            case "=": escaped += "=3D"
            case ",": escaped += "=2C"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The bytes as text, when they are UTF-8 of a sane length.
    private static func text(_ bytes: [UInt8]) -> String? {
        guard bytes.count <= 4096 else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// 18 random bytes in base64: 24 printable characters, never a comma. (The system generator is
    /// drawn through `random(in:)`, never passed `inout`; see ``NickSequence``.)
    static func randomNonce() -> String {
        SASLPayload.base64((0..<18).map { _ in UInt8.random(in: .min ... .max) })
    }
}
