import BotTesting
import IRCClient
import IRCProtocol
import Testing

@Suite("Live InspIRCd over TLS", .timeLimit(.minutes(2)))
struct LiveInspircdTests {
    @Test func registersJoinsNegotiatesCapsAndExchangesMessages() async throws {
        try await InspircdServer.withRunning { server in
            let tls = IRCClientConfiguration.TLS(
                caFile: server.certificate.certificatePath,
                trustSystemRoots: false
            )
            let recorder = await EventRecorder.start(
                testConfiguration(port: server.tlsPort, tls: tls, nick: "OnTheMapBot", channels: ["#class"])
            )
            try await recorder.waitFor("registration") { $0.isRegistered }
            try await recorder.waitFor("join") { $0.joinedChannel == "#class" }
            let client = recorder.client

            let caps = await client.enabledCapabilities
            for wanted in [
                "message-tags", "account-tag", "extended-join", "server-time", "multi-prefix", "cap-notify",
                "chghost", "account-notify", "userhost-in-names", "labeled-response", "batch", "extended-monitor",
            ] {
                #expect(caps.contains(wanted), "missing \(wanted) in \(caps)")
            }
            #expect(!caps.contains("sasl"))
            #expect(await client.serverSupport.networkName == "TestNet")
            // The same told as typed ISUPPORT changes, with the casemapping the client now follows.
            let told = await recorder.events.flatMap { event -> [ServerSupport.Change] in
                if case .serverSupportChanged(let changes) = event { changes } else { [] }
            }
            #expect(told.contains(.networkName("TestNet")))
            let mapping = await client.serverSupport.caseMapping
            #expect(told.contains(.caseMapping(mapping)) || mapping == ServerSupport.defaultCaseMapping)

            // A user over TLS joins and talks to the bot; the bot sees who it is.
            let alice = try await TestIRCUser.connect(
                port: server.tlsPort,
                caFile: server.certificate.certificatePath,
                nick: "alice"
            )
            try await alice.join("#class")
            try await alice.privmsg("#class", "!where bob")
            let received = try await recorder.waitFor("alice's message") {
                $0.userMessage?.text == "!where bob"
            }
            let message = try #require(received.userMessage)
            #expect(message.sender.nick == "alice")
            #expect(message.sender.user == "alice")
            #expect(message.sender.host == "127.0.0.1")
            #expect(!message.isPrivate)
            #expect(message.replyTarget == "#class")
            #expect(message.message.tags["time"] != nil)  // server-time
            #expect(await client.identity(ofNick: "ALICE")?.host == "127.0.0.1")
            #expect(
                await client.members(ofChannel: "#class")?.map(\.nick).sorted() == ["OnTheMapBot", "alice"]
            )

            try await alice.privmsg("OnTheMapBot", "hello in private")
            let dm = try await recorder.waitFor("private message") {
                $0.userMessage?.text == "hello in private"
            }
            #expect(dm.userMessage?.isPrivate == true)
            #expect(dm.userMessage?.replyTarget == "alice")

            // A 600-byte reply arrives as several whole lines, each fitting in 512 bytes, text intact.
            let words = (0..<100).map { "word\($0)" }
            let longReply = String(words.joined(separator: " ").prefix(599)) + "x"
            #expect(longReply.utf8.count == 600)
            await client.sendPrivmsg(to: "#class", text: longReply)
            var pieces: [String] = []
            while pieces.joined(separator: " ").utf8.count < longReply.utf8.count {
                let line = try await alice.waitForMessage(timeout: .seconds(10), "reply piece") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "OnTheMapBot"
                }
                let withoutTags = IRCMessage(
                    source: line.source,
                    command: line.command,
                    parameters: line.parameters
                )
                #expect(withoutTags.serialized().utf8.count + 2 <= 512)
                pieces.append(line.parameters[1])
            }
            #expect(pieces.count >= 2)
            #expect(pieces.joined(separator: " ") == longReply)

            // The WHOIS a session check sends goes out labelled (labeled-response): the server answers
            // it in a batch carrying that label, and the lookup still finds alice's connection.
            let beforeWhois = await recorder.events.count
            let whois = await client.whois("alice")
            #expect(whois?.user == "alice" && whois?.host == "127.0.0.1" && whois?.signedOnAt != nil)
            let batch = try await recorder.waitFor("the labeled batch", after: beforeWhois) { event in
                guard case .message(let line) = event else { return false }
                return line.command == "BATCH" && line.parameters.last == "labeled-response"
            }
            if case .message(let line) = batch { #expect(line.tags["label"]?.isEmpty == false) }
            #expect(await client.whois("nobody-here") == nil)

            // extended-monitor: carol shares no channel with the bot, which watches her nick; her
            // host change still reaches the client, as the event the session book follows.
            let carol = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "carol")
            let beforeWatch = await recorder.events.count
            #expect(await client.watchPresence(of: "carol"))
            try await recorder.waitFor("carol online", after: beforeWatch) { event in
                guard case .message(let line) = event else { return false }
                return line.command == "730"
            }
            try await carol.send("VHOST \(InspircdServer.vhostUser) \(InspircdServer.vhostPassword)")
            try await recorder.waitFor("carol's host change", after: beforeWatch) {
                $0 == .identity(.hostChanged(nick: "carol", user: "carol", host: InspircdServer.vhost))
            }
            await carol.quit()

            // CR/LF/NUL in outgoing text cannot inject a second command.
            await client.sendPrivmsg(to: "#class", text: "line one\r\nQUIT :injected\0")
            let first = try await alice.waitForMessage("sanitized line") { $0.parameters.last == "line one" }
            #expect(first.command == "PRIVMSG")
            let second = try await alice.waitForMessage("second sanitized line") {
                $0.sourceNick == "OnTheMapBot"
            }
            #expect(second.command == "PRIVMSG")
            #expect(second.parameters.last?.contains("QUIT :injected") == true)

            await recorder.stop()
            let quit = try await alice.waitForMessage("bot quit") {
                $0.command == "QUIT" && $0.sourceNick == "OnTheMapBot"
            }
            #expect(quit.parameters.last?.contains("test over") == true)
            #expect(await recorder.runReturned)
            await alice.quit()
        }
    }

    @Test func reconnectsAndRejoinsAfterServerRestart() async throws {
        try await InspircdServer.withRunning { server in
            let tls = IRCClientConfiguration.TLS(
                caFile: server.certificate.certificatePath,
                trustSystemRoots: false
            )
            let recorder = await EventRecorder.start(
                testConfiguration(
                    port: server.tlsPort,
                    tls: tls,
                    nick: "RestartBot",
                    channels: ["#class", "#second"]
                )
            )
            try await recorder.waitFor("registration") { $0.isRegistered }
            try await recorder.waitFor("join") { $0.joinedChannel == "#second" }
            // The server names its bot mode (BOT=B, the botmode module): the client sets it on itself.
            let client = recorder.client
            try await recorder.waitUntil("the bot mode set") {
                await client.botMode == BotMode(mode: "B", isSet: true, answered: true)
            }
            let before = await recorder.events.count

            await server.stop()
            try await recorder.waitFor("disconnect", after: before) { $0.isDisconnected }
            #expect(await recorder.client.isRegistered == false)
            // Back only after an attempt failed while the server was down.
            try await recorder.waitFor("a failed attempt", after: before) { $0.connectionFailureReason != nil }
            try await server.restart()

            try await recorder.waitFor("registration again", timeout: .seconds(20), after: before) {
                $0.isRegistered
            }
            try await recorder.waitFor("rejoin", after: before) { $0.joinedChannel == "#class" }
            try await recorder.waitFor("rejoin", after: before) { $0.joinedChannel == "#second" }
            // And again on the new connection (its MODE waits behind the lines queued meanwhile).
            try await recorder.waitUntil("the bot mode set again", timeout: .seconds(20)) {
                await client.botMode == BotMode(mode: "B", isSet: true, answered: true)
            }
            let bob = try await TestIRCUser.connect(port: server.plainPort, nick: "bob")
            try await bob.send("NAMES #class")
            let names = try await bob.waitForMessage("names") { $0.command == "353" }
            #expect(names.parameters.last?.contains("RestartBot") == true)
            await bob.quit()
            await recorder.stop()
        }
    }
}
