import BotTesting
import IRCClient
import IRCProtocol
import Testing

@Suite("Live ngIRCd", .timeLimit(.minutes(2)))
struct LiveNgircdTests {
    @Test func fiftyQueuedRepliesAllArriveWithoutExcessFlood() async throws {
        try await NgircdServer.withRunning { server in
            let tls = IRCClientConfiguration.TLS(
                caFile: server.certificate.certificatePath,
                trustSystemRoots: false
            )
            // Default flood settings (burst 10, 1 line/s).
            let configuration = testConfiguration(
                port: server.tlsPort,
                tls: tls,
                nick: "FloodBot",
                channels: ["#flood"]
            )
            #expect(configuration.flood.burst == 10 && configuration.flood.linesPerSecond == 1)
            let recorder = await EventRecorder.start(configuration)
            try await recorder.waitFor("join") { $0.joinedChannel == "#flood" }
            let carol = try await TestIRCUser.connect(port: server.plainPort, nick: "carol")
            try await carol.join("#flood")
            let before = await recorder.events.count

            for index in 1...50 {
                await recorder.client.sendPrivmsg(to: "#flood", text: "reply number \(index) of 50")
            }
            let lines = try await carol.waitForMessages(count: 50, timeout: .seconds(80), "bot replies") {
                $0.command == "PRIVMSG" && $0.sourceNick == "FloodBot"
            }
            #expect(lines.map { $0.parameters.last ?? "" } == (1...50).map { "reply number \($0) of 50" })
            #expect(await recorder.count { $0.isDisconnected } == 0)
            let events = await recorder.events.dropFirst(before)
            #expect(!events.contains { if case .message(let m) = $0 { m.command == "ERROR" } else { false } })
            #expect(await recorder.client.isRegistered)
            await carol.quit()
            await recorder.stop()
        }
    }

    @Test func refusesAServerWithAnotherCertificate() async throws {
        try await NgircdServer.withRunning { server in
            let other = try TemporaryDirectory(prefix: "other-cert")
            let otherCertificate = try await TestCertificate.make(in: other.path, name: "other")
            let tls = IRCClientConfiguration.TLS(
                caFile: otherCertificate.certificatePath,
                trustSystemRoots: false
            )
            let recorder = await EventRecorder.start(
                testConfiguration(port: server.tlsPort, tls: tls, nick: "WrongCA")
            )
            let failure = try await recorder.waitFor("connection failure") {
                $0.connectionFailureReason != nil
            }
            let reason = failure.connectionFailureReason ?? ""
            #expect(reason.contains("certificate"), "reason: \(reason)")
            await recorder.stop()
            #expect(await recorder.count { $0.isRegistered } == 0)
        }
    }

    @Test func pinnedFingerprintAcceptsTheRightCertificateAndRefusesOthers() async throws {
        try await NgircdServer.withRunning { server in
            // Right pin, no CA file: the self-signed certificate is accepted by its fingerprint alone.
            let pinned = IRCClientConfiguration.TLS(pinnedFingerprint: server.certificate.sha256Fingerprint)
            let good = await EventRecorder.start(
                testConfiguration(port: server.tlsPort, tls: pinned, nick: "PinnedOK")
            )
            try await good.waitFor("registration") { $0.isRegistered }
            await good.stop()

            let other = try TemporaryDirectory(prefix: "other-pin")
            let otherCertificate = try await TestCertificate.make(in: other.path, name: "other")
            let wrongPin = IRCClientConfiguration.TLS(
                caFile: server.certificate.certificatePath,  // even a trusted CA does not override a wrong pin
                pinnedFingerprint: otherCertificate.sha256Fingerprint
            )
            let bad = await EventRecorder.start(
                testConfiguration(port: server.tlsPort, tls: wrongPin, nick: "PinnedBad")
            )
            let failure = try await bad.waitFor("pin mismatch") { $0.connectionFailureReason != nil }
            let reason = failure.connectionFailureReason ?? ""
            #expect(reason.contains("fingerprint"), "reason: \(reason)")
            #expect(reason.contains(server.certificate.sha256Fingerprint), "reason: \(reason)")
            await bad.stop()
            #expect(await bad.count { $0.isRegistered } == 0)
        }
    }

    @Test func plaintextOnlyWhenExplicitlyDisabled() async throws {
        try await NgircdServer.withRunning { server in
            #expect(IRCClientConfiguration(host: "irc.example.org", nick: "x").tls.enabled)
            let plain = IRCClientConfiguration.TLS(enabled: false)
            let recorder = await EventRecorder.start(
                testConfiguration(port: server.plainPort, tls: plain, nick: "PlainBot", channels: ["#plain"])
            )
            try await recorder.waitFor("join") { $0.joinedChannel == "#plain" }
            #expect(await recorder.client.currentNick == "PlainBot")
            await recorder.stop()
        }
    }

    @Test func rejoinsAfterKickAndRetriesARefusedJoin() async throws {
        try await NgircdServer.withRunning { server in
            // dave creates both channels (so he is operator); #locked is invite-only.
            let dave = try await TestIRCUser.connect(port: server.plainPort, nick: "dave")
            try await dave.join("#kick")
            try await dave.join("#locked")
            try await dave.send("MODE #locked +i")
            _ = try await dave.waitForMessage("mode") { $0.command == "MODE" }
            let tls = IRCClientConfiguration.TLS(
                caFile: server.certificate.certificatePath,
                trustSystemRoots: false
            )
            let recorder = await EventRecorder.start(
                testConfiguration(
                    port: server.tlsPort,
                    tls: tls,
                    nick: "KickBot",
                    channels: ["#kick", "#locked"]
                )
            )
            try await recorder.waitFor("join") { $0.joinedChannel == "#kick" }
            let refused = try await recorder.waitFor("refusal") {
                if case .joinRefused(let channel, "473", _) = $0 { channel == "#locked" } else { false }
            }
            #expect(refused.joinedChannel == nil)
            try await dave.send("MODE #locked -i")
            try await recorder.waitFor("join after retry", timeout: .seconds(10)) {
                $0.joinedChannel == "#locked"
            }

            let before = await recorder.events.count
            try await dave.send("KICK #kick KickBot :out you go")
            let kicked = try await recorder.waitFor("kick", after: before) {
                if case .kicked = $0 { true } else { false }
            }
            if case .kicked(let channel, let by, let reason) = kicked {
                #expect(channel == "#kick" && by == "dave" && reason == "out you go")
            }
            try await recorder.waitFor("rejoin", after: before) { $0.joinedChannel == "#kick" }
            _ = try await dave.waitForMessage("bot rejoined") {
                $0.command == "JOIN" && $0.sourceNick == "KickBot" && $0.parameters.first == "#kick"
            }
            #expect(await recorder.client.joinedChannels.sorted() == ["#kick", "#locked"])
            await dave.quit()
            await recorder.stop()
        }
    }
}
