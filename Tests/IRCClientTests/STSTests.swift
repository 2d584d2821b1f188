import BotTesting
import Foundation
import IRCClient
import IRCProtocol
import Testing

/// Strict Transport Security against scripted servers: a plaintext server's policy sends the client to
/// TLS (with the certificate verified), a TLS server's policy is kept until it expires (by a manual
/// wall clock) or is removed, and policies that do not count are ignored.
@Suite("STS", .timeLimit(.minutes(1)))
struct STSTests {
    /// Policies in memory, as a bot's state store keeps them.
    final class MemoryPolicies: STSPolicyStore, @unchecked Sendable {
        private let lock = NSLock()
        private var policies: [String: STSPolicy] = [:]
        /// One line per write: a wait looks at the policies again after each.
        private let writes = WaitableLines()

        func stsPolicy(forHost host: String) async -> STSPolicy? { lock.withLock { policies[host] } }
        func setSTSPolicy(_ policy: STSPolicy?, forHost host: String) async {
            lock.withLock { policies[host] = policy }
            writes.append(host)
        }
        var all: [String: STSPolicy] { lock.withLock { policies } }

        /// Waits until the policies satisfy `condition`, looked at now and after each write; records
        /// an issue when 30 s pass first.
        func waitUntil(_ condition: @escaping @Sendable ([String: STSPolicy]) -> Bool) async {
            let met = await writes.wait(timeout: .seconds(30)) { _ in condition(self.all) }
            if !met { Issue.record("the policies never became what was awaited: \(all)") }
        }
    }

    /// A wall clock that moves only when told to.
    final class ManualWallClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date(timeIntervalSince1970: 1_800_000_000)
        var now: Date { lock.withLock { current } }
        func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    }

    /// A server that registers anyone, advertising `sts` with `value` (none when nil).
    static func server(sts value: String?, certificate: TestCertificate? = nil) async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start(certificate: certificate) { message, _ in
            switch (message.command, message.parameters.first) {
            case ("CAP", "LS"): [":srv CAP * LS :multi-prefix" + (value.map { " sts=\($0)" } ?? "")]
            case ("CAP", "REQ"): [":srv CAP * ACK :\(message.parameters.last ?? "")"]
            case ("CAP", "END"): [":srv 001 bot :Welcome"]
            default: []
            }
        }
    }

    /// A `tls: false` configuration for `port` whose TLS, when STS asks for it, trusts `certificate` only.
    static func plaintextConfiguration(port: Int, certificate: TestCertificate) -> IRCClientConfiguration {
        testConfiguration(
            port: port,
            tls: .init(enabled: false, caFile: certificate.certificatePath, trustSystemRoots: false),
            nick: "bot")
    }

    @Test func aPlaintextPolicyWithAPortMovesTheClientToTLSAndATLSPolicyIsKept() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-upgrade")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=3600,port=1", certificate: certificate)
        let plain = try await Self.server(sts: "port=\(secure.port),duration=999")
        let store = MemoryPolicies()
        let clock = ManualWallClock()
        let recorder = await EventRecorder.start(
            Self.plaintextConfiguration(port: plain.port, certificate: certificate), stsStore: store,
            wallClock: { clock.now })
        try await recorder.waitFor("registration over TLS") { $0.isRegistered }
        // The plaintext server saw only the start of registration, and the QUIT.
        let plainLines = plain.receivedLines(connection: 1)
        #expect(plainLines.contains { $0.hasPrefix("QUIT") })
        #expect(!plainLines.contains("CAP END"))
        #expect(plain.connectionCount == 1)
        #expect(secure.firstBytes().first == 0x16)  // a TLS handshake record
        #expect(secure.receivedLines(connection: 1).contains("CAP END"))
        // The TLS connection's policy is kept, for the port it was seen on, for its duration.
        await store.waitUntil { $0["127.0.0.1"] != nil }
        #expect(store.all["127.0.0.1"] == STSPolicy(port: secure.port, expires: clock.now + 3600))
        // A reconnect stays on TLS.
        let before = await recorder.events.count
        secure.dropConnections()
        try await recorder.waitFor("registration again", after: before) { $0.isRegistered }
        #expect(plain.connectionCount == 1)
        #expect(secure.connectionCount == 2)
        await recorder.stop()
        await plain.stop()
        await secure.stop()
    }

    @Test func aStoredPolicyUpgradesLaterRunsUntilItExpires() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-expiry")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: nil, certificate: certificate)
        let plain = try await Self.server(sts: nil)
        let clock = ManualWallClock()
        let store = MemoryPolicies()
        await store.setSTSPolicy(STSPolicy(port: secure.port, expires: clock.now + 60), forHost: "127.0.0.1")
        let configuration = Self.plaintextConfiguration(port: plain.port, certificate: certificate)

        let first = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await first.waitFor("registration over TLS") { $0.isRegistered }
        #expect(plain.connectionCount == 0)
        #expect(secure.connectionCount == 1)
        await first.stop()

        clock.advance(by: 61)
        let second = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await second.waitFor("registration in plaintext") { $0.isRegistered }
        #expect(plain.connectionCount == 1)
        #expect(secure.connectionCount == 1)
        #expect(store.all.isEmpty)
        await second.stop()
        await plain.stop()
        await secure.stop()
    }

    /// The STS specification's "rescheduling expiry on disconnect": a policy expires its duration
    /// after the connection that advertised it closed, a stop included. Upgraded, a policy of
    /// `duration=10`, a drop, a reconnect, a stop and a start 5 s later: the start is over TLS.
    @Test func aPolicyExpiresItsDurationAfterTheConnectionCloses() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-reschedule")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=10", certificate: certificate)
        let plain = try await Self.server(sts: "port=\(secure.port)")
        let store = MemoryPolicies()
        let clock = ManualWallClock()
        let configuration = Self.plaintextConfiguration(port: plain.port, certificate: certificate)
        let first = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await first.waitFor("registration over TLS") { $0.isRegistered }
        clock.advance(by: 8)
        let before = await first.events.count
        secure.dropConnections()
        try await first.waitFor("registration again", after: before) { $0.isRegistered }
        clock.advance(by: 8)
        await first.stop()
        // Kept from the stop, not from the last advertisement.
        await store.waitUntil { $0["127.0.0.1"]?.expires == clock.now + 10 }

        clock.advance(by: 5)
        let second = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await second.waitFor("registration over TLS after the restart") { $0.isRegistered }
        #expect(plain.connectionCount == 1, "the restart went to the plaintext port")
        #expect(secure.connectionCount == 3)
        await second.stop()
        await plain.stop()
        await secure.stop()
    }

    /// irctest's STS case: `duration=10` is advertised on the first TLS connection only; the
    /// server's ERROR ends it at +8, the reconnect (no policy said on it) is stopped at +17 and the
    /// bot starts again at +19, past the +18 the first close set. The stop reschedules the policy
    /// from the duration last advertised, so the start goes to TLS.
    @Test func aConnectionThatDoesNotAdvertiseThePolicyStillReschedulesIt() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-reschedule-silent")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await ScriptedIRCServer.start(certificate: certificate) { message, connection in
            switch (message.command, message.parameters.first) {
            case ("CAP", "LS"): [":srv CAP * LS :multi-prefix" + (connection == 1 ? " sts=duration=10" : "")]
            case ("CAP", "REQ"): [":srv CAP * ACK :\(message.parameters.last ?? "")"]
            case ("CAP", "END"): [":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD"]
            default: []
            }
        }
        let plain = try await Self.server(sts: "port=\(secure.port)")
        let store = MemoryPolicies()
        let clock = ManualWallClock()
        let configuration = Self.plaintextConfiguration(port: plain.port, certificate: certificate)
        let first = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await first.waitFor("registration over TLS") { $0.isRegistered }
        clock.advance(by: 8)
        let before = await first.events.count
        secure.broadcast("ERROR :closing link")
        try await first.waitFor("registration again", after: before) { $0.isRegistered }
        clock.advance(by: 9)
        await first.stop()
        await store.waitUntil { $0["127.0.0.1"]?.expires == clock.now + 10 }

        clock.advance(by: 2)
        let second = await EventRecorder.start(configuration, stsStore: store, wallClock: { clock.now })
        try await second.waitFor("registration over TLS after the restart") { $0.isRegistered }
        #expect(plain.connectionCount == 1, "the restart went to the plaintext port")
        await second.stop()
        await plain.stop()
        await secure.stop()
    }

    @Test func durationZeroRemovesThePolicy() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-remove")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=0", certificate: certificate)
        let clock = ManualWallClock()
        let store = MemoryPolicies()
        await store.setSTSPolicy(STSPolicy(port: secure.port, expires: clock.now + 600), forHost: "127.0.0.1")
        let recorder = await EventRecorder.start(
            Self.plaintextConfiguration(port: 1, certificate: certificate), stsStore: store, wallClock: { clock.now })
        try await recorder.waitFor("registration over TLS") { $0.isRegistered }
        await store.waitUntil { $0.isEmpty }
        await recorder.stop()
        await secure.stop()
    }

    @Test func plaintextPoliciesWithoutAUsablePortAreIgnored() async throws {
        for value in ["duration=3600", "port=abc", "port=70000", "port=", "port=6697,port=6698"] {
            let plain = try await Self.server(sts: value)
            let folder = try TemporaryDirectory(prefix: "sts-ignored")
            let certificate = try await TestCertificate.make(in: folder.path)
            let store = MemoryPolicies()
            let recorder = await EventRecorder.start(
                Self.plaintextConfiguration(port: plain.port, certificate: certificate), stsStore: store)
            try await recorder.waitFor("registration in plaintext (\(value))") { $0.isRegistered }
            #expect(plain.connectionCount == 1)
            #expect(!plain.receivedLines(connection: 1).contains { $0.hasPrefix("QUIT") })
            #expect(store.all.isEmpty)
            await recorder.stop()
            await plain.stop()
        }
    }

    /// A server asking for 31,700 years of TLS gets a year: the policy kept expires within one.
    @Test func anEndlessDurationIsKeptForAYearAtMost() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-ceiling")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=999999999999", certificate: certificate)
        let clock = ManualWallClock()
        let store = MemoryPolicies()
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: secure.port, tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false),
                nick: "bot"),
            stsStore: store, wallClock: { clock.now })
        try await recorder.waitFor("registration") { $0.isRegistered }
        await store.waitUntil { !$0.isEmpty }
        let kept = try #require(store.all.values.first)
        #expect(kept.expires.timeIntervalSince(clock.now) <= 365 * 24 * 3600)
        #expect(kept.expires.timeIntervalSince(clock.now) > 364 * 24 * 3600)
        await recorder.stop()
        await secure.stop()
    }

    @Test func aMalformedDurationOverTLSIsIgnored() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-malformed")
        let certificate = try await TestCertificate.make(in: folder.path)
        let secure = try await Self.server(sts: "duration=soon", certificate: certificate)
        let store = MemoryPolicies()
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: secure.port, tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false),
                nick: "bot"),
            stsStore: store)
        try await recorder.waitFor("registration") { $0.isRegistered }
        // The client handles the server's lines in order: once it answers a later PING, it has
        // handled the malformed policy.
        secure.broadcast("PING :policy-handled")
        _ = try await secure.waitForLine { $0.command == "PONG" && $0.parameters.last == "policy-handled" }
        #expect(store.all.isEmpty)
        await recorder.stop()
        await secure.stop()
    }
}
