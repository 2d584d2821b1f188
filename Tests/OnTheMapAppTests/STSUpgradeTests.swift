import BotTesting
import Foundation
import IRCProtocol
import Logging
import Testing

@testable import OnTheMapApp

/// Strict Transport Security as irctest's client case plays it, through the bot's own config: a
/// plaintext server offers `sts=port=P`, a TLS server on P has a self-signed certificate that only
/// `tls_fingerprint` trusts. The config (`tls: false` with the fingerprint) is valid and
/// `check-config` says what the upgrade trusts; the bot moves to TLS, and started again with the
/// same plaintext config it goes straight to TLS (the policy kept in its state store).
@Suite struct STSUpgradeTests {
    /// Registers anyone; `sts` is the value offered in `CAP LS`.
    static func server(sts: String, certificate: TestCertificate? = nil) async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start(certificate: certificate) { message, _ in
            switch (message.command, message.parameters.first) {
            case ("CAP", "LS"): [":srv CAP * LS :sts=\(sts)"]
            case ("CAP", "REQ"): [":srv CAP * NAK :\(message.parameters.last ?? "")"]
            case ("CAP", "END"):
                [":srv 001 MapBot :Welcome", ":srv 376 MapBot :End of MOTD"]
            case ("JOIN", let channel?):
                [":MapBot!otm@127.0.0.1 JOIN \(channel)", ":srv 366 MapBot \(channel) :End of /NAMES list."]
            default: []
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aFingerprintIsTrustedForTheUpgradeAndTheNextStartGoesStraightToTLS() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-upgrade")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=300", certificate: certificate)
        let plain = try await Self.server(sts: "port=\(secure.port)")
        defer {
            Task { [plain, secure] in
                await plain.stop(); await secure.stop()
            }
        }

        let config = try ConfigLoader.parse(
            yaml: """
                irc:
                  server: 127.0.0.1
                  port: \(plain.port)
                  tls: false
                  tls_fingerprint: "\(certificate.sha256Fingerprint)"
                  nick: MapBot
                  channels: ["#class"]
                service:
                  database: \(folder.file("class.sqlite"))
                """)
        #expect(
            CheckConfigCommand.transport(of: config.irc)
                == "WITHOUT TLS (plaintext) until the server offers STS; the upgrade to TLS trusts the certificate with tls_fingerprint"
        )

        let quiet = Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() })
        for run in 1...2 {
            let bot = try await BotAssembly.makeService(config: config, logger: quiet)
            let running = Task { await bot.runUntilStopped() }
            let joined = await secure.waitUntil {
                secure.connectionCount == run
                    && secure.receivedLines(connection: run).contains { $0.hasPrefix("JOIN #class") }
            }
            #expect(joined, "run \(run) did not join over TLS")
            await bot.shutdown()
            _ = await running.value
        }
        // The plaintext server saw the first start only; the second went to TLS at once.
        #expect(plain.connectionCount == 1)
        #expect(plain.receivedLines(connection: 1).contains { $0.hasPrefix("CAP LS") })
        #expect(!plain.receivedLines(connection: 1).contains { $0.hasPrefix("JOIN") })
    }
}
