import BotTesting
import Foundation
import Logging
import Testing

@testable import IRCClient

/// How the TLS files of the IRC connection are loaded: a missing or malformed CA file is a settings
/// error (the bot stops with exit 78), unlike running out of file descriptors, which is retried.
@Suite struct TLSFileLoadingTests {
    static let quiet = Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    static func setup(caFile: String) throws -> IRCTLSSetup {
        try IRCTLSSetup(
            configuration: .init(caFile: caFile, trustSystemRoots: false), host: "127.0.0.1", logger: quiet)
    }

    /// A CA file that does not exist is an unreadable file, not a passing failure.
    @Test func aMissingCAFileIsASettingsError() throws {
        let folder = try TemporaryDirectory(prefix: "tls-missing")
        let path = folder.file("absent.pem")
        #expect {
            _ = try Self.setup(caFile: path)
        } throws: { error in
            guard let error = error as? IRCTLSError, case .unreadableFile(let named, let reason) = error else {
                return false
            }
            return named == path && reason.contains("No such file") && !error.isTransient
        }
    }

    /// A CA file that is not PEM is an unreadable file, not a passing failure.
    @Test func aMalformedCAFileIsASettingsError() throws {
        let folder = try TemporaryDirectory(prefix: "tls-malformed")
        let path = folder.file("garbage.pem")
        try "not a certificate\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try Self.setup(caFile: path)
        } throws: { error in
            guard let error = error as? IRCTLSError, case .unreadableFile(let named, _) = error else { return false }
            return named == path && !error.isTransient
        }
    }

    /// A good CA file loads, read whole (larger than one read of the loader).
    @Test func aGoodCAFileLoads() async throws {
        let folder = try TemporaryDirectory(prefix: "tls-good")
        let certificate = try await TestCertificate.make(in: folder.path)
        let pem = try String(contentsOfFile: certificate.certificatePath, encoding: .utf8)
        let bundle = folder.file("bundle.pem")
        try String(repeating: pem, count: 20).write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(try IRCTLSSetup.readFile(bundle).count == pem.utf8.count * 20)
        let setup = try Self.setup(caFile: bundle)
        #expect(setup.trustedCertificates.count == 20)
    }

    /// Out of file descriptors is worded as such and is the one transient TLS error.
    @Test func outOfDescriptorsIsTransientAndSaysSo() {
        let error = IRCTLSError.outOfFileDescriptors(path: "/etc/ca.pem")
        #expect(error.isTransient)
        #expect(error.description.contains("out of file descriptors"))
        #expect(!IRCTLSError.unreadableFile(path: "/etc/ca.pem", reason: "x").isTransient)
        #expect(!IRCTLSSetup.outOfFileDescriptors())
    }
}
