import BotTesting
import Foundation
import IRCClient
import IRCProtocol
import Logging
import Testing

/// SASL against real services: Debian's InspIRCd linked over loopback to Debian's Atheme 7.2, with an
/// account registered through NickServ (and a client certificate added to it with `CERT ADD`). The
/// server advertises `sasl=PLAIN,EXTERNAL` (Atheme 7.2 has no SCRAM; the SCRAM exchange is checked
/// against scripted servers in `ScriptedServerTests` and `SCRAMClientTests`).
@Suite("SASL with Atheme services, live", .serialized, .timeLimit(.minutes(3)))
struct ServicesSASLLiveTests {
    static let account = "ada"
    static let password = "Atheme-Secret-4711"

    /// Runs `body` with InspIRCd and Atheme linked, the account registered and `certificate` on it.
    func withServices(
        _ body: (InspircdServer, TestCertificate) async throws -> Void
    ) async throws {
        let server = try await InspircdServer.start(services: .init(password: "link-secret-\(UUID().uuidString)"))
        let atheme: AthemeServices
        do {
            atheme = try await AthemeServices.start(linkedTo: server)
        } catch {
            await server.stop()
            throw error
        }
        do {
            let certificate = try await TestCertificate.make(
                in: atheme.directory.path, name: "ada-client", commonName: "ada", subjectAltName: "DNS:ada.test")
            try await AthemeServices.register(
                account: Self.account, password: Self.password, email: "ada@example.com", on: server,
                certificate: certificate)
            try await body(server, certificate)
        } catch {
            Issue.record("InspIRCd log:\n\(server.log().suffix(2_000))\nAtheme log:\n\(atheme.log().suffix(2_000))")
            await atheme.stop()
            await server.stop()
            throw error
        }
        await atheme.stop()
        await server.stop()
    }

    func configuration(
        _ server: InspircdServer, nick: String, sasl: IRCClientConfiguration.SASL,
        certificate: TestCertificate? = nil
    ) -> IRCClientConfiguration {
        testConfiguration(
            port: server.tlsPort,
            tls: .init(
                enabled: true, caFile: server.certificate.certificatePath,
                clientCertificateFile: certificate?.certificatePath, clientKeyFile: certificate?.keyPath),
            nick: nick, sasl: sasl)
    }

    /// Logs in with `configuration` and returns the mechanisms the client named in `AUTHENTICATE`.
    func logIn(_ configuration: IRCClientConfiguration) async throws -> [String] {
        let captured = CapturedLog()
        let recorder = await EventRecorder.start(configuration, logger: captured.logger())
        let loggedIn = try await recorder.waitFor("900 logged in") {
            if case .loggedIn = $0 { true } else { false }
        }
        #expect("\(loggedIn)".contains(Self.account))
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.count { $0.saslFailureReason != nil } == 0)
        await recorder.stop()
        return Self.mechanismsTried(in: captured.all)
    }

    /// The mechanisms the client started, in order, from its log.
    static func mechanismsTried(in log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "Authenticating with SASL ") else { return nil }
            return String(line[range.upperBound...].prefix { !$0.isWhitespace })
        }
    }

    /// PLAIN with the account's password and EXTERNAL with the certificate NickServ knows both log the
    /// client in as the account before registration ends; `auto` picks EXTERNAL when the bot has a
    /// certificate and PLAIN over TLS when it has not, and never names a mechanism the server did
    /// not offer.
    @Test func plainExternalAndAutoLogInAsTheAccount() async throws {
        try await withServices { server, certificate in
            let plain = try await logIn(
                configuration(
                    server, nick: "plainbot",
                    sasl: .init(mechanism: .plain, username: Self.account, password: Self.password, required: true)))
            #expect(plain == ["PLAIN"])

            let external = try await logIn(
                configuration(
                    server, nick: "certbot", sasl: .init(mechanism: .external, username: "", required: true),
                    certificate: certificate))
            #expect(external == ["EXTERNAL"])

            let autoWithCertificate = try await logIn(
                configuration(
                    server, nick: "autocert",
                    sasl: .init(
                        mechanisms: .automatic, username: Self.account, password: Self.password, required: true),
                    certificate: certificate))
            #expect(autoWithCertificate == ["EXTERNAL"])

            let autoWithPassword = try await logIn(
                configuration(
                    server, nick: "autopass",
                    sasl: .init(mechanisms: .automatic, username: Self.account, password: Self.password, required: true)
                ))
            #expect(autoWithPassword == ["PLAIN"])
        }
    }

    /// A wrong password is refused once by the services: without `required` the client registers
    /// unauthenticated and does not try again; with `required` it stops with the reason, after that
    /// one attempt.
    @Test func aWrongPasswordFailsOnceAndIsNotRetried() async throws {
        try await withServices { server, _ in
            let captured = CapturedLog()
            let optional = await EventRecorder.start(
                configuration(
                    server, nick: "wrongbot",
                    sasl: .init(mechanism: .plain, username: Self.account, password: "not-the-password")),
                logger: captured.logger())
            // Registration ends the exchange: every attempt and failure came before it.
            try await optional.waitFor("registration without an account") { $0.isRegistered }
            #expect(await optional.count { $0.saslFailureReason != nil } == 1)
            #expect(await optional.count { if case .loggedIn = $0 { true } else { false } } == 0)
            await optional.stop()
            #expect(Self.mechanismsTried(in: captured.all) == ["PLAIN"])

            let strictLog = CapturedLog()
            let strict = await EventRecorder.start(
                configuration(
                    server, nick: "strictbot",
                    sasl: .init(mechanism: .plain, username: Self.account, password: "not-the-password", required: true)
                ),
                logger: strictLog.logger())
            let stopped = try await strict.waitFor("the client stops", timeout: .seconds(20)) {
                if case .stopped(let reason) = $0 { reason != nil } else { false }
            }
            #expect("\(stopped)".localizedCaseInsensitiveContains("sasl"))
            try await strict.waitForRunToReturn()
            #expect(await strict.count { $0.isRegistered } == 0)
            #expect(Self.mechanismsTried(in: strictLog.all) == ["PLAIN"])
            #expect(!strictLog.all.contains("not-the-password"))
            await strict.stop()
        }
    }
}
