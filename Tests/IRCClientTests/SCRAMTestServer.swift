import BotTesting
import Crypto
import Foundation
import IRCClient
import IRCProtocol
import _CryptoExtras

/// The server side of SASL for scripted-server tests: PLAIN and SCRAM-SHA-256/512 against one
/// account (`bot` / ``password``), with a ``Fault`` to play a server that misbehaves. The SCRAM side
/// is computed here from the RFC's definitions with swift-crypto, independently of the client's code.
final class SCRAMTestServer: @unchecked Sendable {
    /// How the server misbehaves.
    enum Fault: Sendable, Equatable {
        case none
        /// server-final carries a signature made with another password.
        case badSignature
        /// server-first's nonce does not start with the client's.
        case foreignNonce
        /// server-first asks for this iteration count.
        case iterations(Int)
        /// server-first is this text (base64-encoded as sent).
        case serverFirst(String)
        /// server-final is `e=` with this error.
        case error(String)
        /// After client-final, the server says 900/903 without sending server-final.
        case successWithoutProof
        /// The server's nonce extension is 600 characters (server-first arrives in two chunks).
        case longNonce
    }

    static let password = "correct horse battery staple"
    let offered: String
    let fault: Fault
    private let lock = NSLock()
    private var mechanism = ""
    private var buffer = ""
    private var clientFirstBare = ""
    private var serverFirst = ""
    private var salted: [UInt8] = []

    /// `offered` is the `sasl=` value (empty: `sasl` without a list).
    init(offered: String, fault: Fault = .none) {
        self.offered = offered
        self.fault = fault
    }

    func start() async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start { message, _ in self.respond(message) }
    }

    private var offeredSet: Set<String> { Set(offered.split(separator: ",").map(String.init)) }

    func respond(_ message: IRCMessage) -> [String] {
        lock.withLock {
            switch message.command {
            case "CAP":
                switch message.parameters.first {
                case "LS": return [":srv CAP * LS :multi-prefix " + (offered.isEmpty ? "sasl" : "sasl=\(offered)")]
                case "REQ": return [":srv CAP * ACK :\(message.parameters.last ?? "")"]
                case "END": return [":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD"]
                default: return []
                }
            case "AUTHENTICATE":
                return authenticate(message.parameters.first ?? "")
            default:
                return []
            }
        }
    }

    private func authenticate(_ argument: String) -> [String] {
        if mechanism.isEmpty {
            let all = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"
            guard offered.isEmpty ? all.contains(argument) : offeredSet.contains(argument) else {
                return [
                    ":srv 908 bot \(offered.isEmpty ? all : offered) :are available SASL mechanisms",
                    ":srv 904 bot :SASL authentication failed",
                ]
            }
            mechanism = argument
            return ["AUTHENTICATE +"]
        }
        if argument == "*" {
            mechanism = ""
            return [":srv 906 bot :SASL authentication aborted"]
        }
        if argument != "+" { buffer += argument }
        if argument.utf8.count == 400 { return [] }
        let data = Data(base64Encoded: buffer).map { String(decoding: $0, as: UTF8.self) } ?? ""
        buffer = ""
        return mechanism == "PLAIN" ? plain(data) : scram(data)
    }

    private func plain(_ data: String) -> [String] {
        mechanism = ""
        return data == "bot\0bot\0\(Self.password)" ? success : [":srv 904 bot :SASL authentication failed"]
    }

    private var success: [String] {
        [
            ":srv 900 bot bot!otm@127.0.0.1 bot :You are now logged in as bot",
            ":srv 903 bot :SASL authentication successful",
        ]
    }

    private func scram(_ data: String) -> [String] {
        if data.hasPrefix("n,,") {
            clientFirstBare = String(data.dropFirst(3))
            let clientNonce = clientFirstBare.split(separator: ",").first { $0.hasPrefix("r=") }?.dropFirst(2) ?? ""
            let salt = Array("salt of the account".utf8)
            var iterations = 4096
            var nonce = clientNonce + "server-part"
            switch fault {
            case .foreignNonce: nonce = "x" + clientNonce + "server-part"
            case .iterations(let count): iterations = count
            case .longNonce: nonce = clientNonce + String(repeating: "q", count: 600)
            default: break
            }
            serverFirst = "r=\(nonce),s=\(Data(salt).base64EncodedString()),i=\(iterations)"
            if case .serverFirst(let text) = fault { serverFirst = text }
            salted = derive(Self.password, salt: salt, iterations: max(1, min(iterations, 100_000)))
            return lines(serverFirst)
        }
        if data.hasPrefix("c=") {
            let withoutProof = String(data[..<(data.range(of: ",p=")?.lowerBound ?? data.endIndex)])
            let proof = Data(base64Encoded: String(data.split(separator: ",").last?.dropFirst(2) ?? "")) ?? Data()
            let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
            let clientKey = hmac(salted, Array("Client Key".utf8))
            let signature = hmac(hash(clientKey), authMessage)
            guard Array(proof) == zip(clientKey, signature).map({ $0 ^ $1 }) else {
                mechanism = ""
                return [":srv 904 bot :SASL authentication failed"]
            }
            var serverKey = hmac(salted, Array("Server Key".utf8))
            switch fault {
            case .badSignature: serverKey = hmac(Array("another password".utf8), Array("Server Key".utf8))
            case .error(let error): return lines("e=\(error)")
            case .successWithoutProof: return success
            default: break
            }
            return lines("v=\(Data(hmac(serverKey, authMessage)).base64EncodedString())")
        }
        if data.isEmpty {
            mechanism = ""
            return success
        }
        return [":srv 904 bot :SASL authentication failed"]
    }

    private func lines(_ text: String) -> [String] {
        SASLPayload.authenticateMessages(for: Array(text.utf8)).map { "AUTHENTICATE \($0.parameters[0])" }
    }

    private var isSHA512: Bool { mechanism == "SCRAM-SHA-512" }

    private func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: isSHA512 ? .sha512 : .sha256,
            outputByteCount: isSHA512 ? 64 : 32, unsafeUncheckedRounds: iterations)
        return key?.withUnsafeBytes { Array($0) } ?? []
    }

    private func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        isSHA512
            ? Array(HMAC<SHA512>.authenticationCode(for: data, using: SymmetricKey(data: key)))
            : Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    private func hash(_ data: [UInt8]) -> [UInt8] {
        isSHA512 ? Array(SHA512.hash(data: data)) : Array(SHA256.hash(data: data))
    }
}
