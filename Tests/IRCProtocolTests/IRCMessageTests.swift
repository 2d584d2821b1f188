import Testing

@testable import IRCProtocol

@Suite("IRCMessage parsing and serialization")
struct IRCMessageTests {
    @Test func parsesTagsSourceCommandAndParameters() throws {
        let line =
            "@time=2026-11-22T12:00:00.000Z;account=alice;+draft/reply=abc "
            + ":alice!~a@host.example PRIVMSG #chan :hello world"
        let message = try IRCMessage(parsing: line)
        #expect(
            message.tags == ["time": "2026-11-22T12:00:00.000Z", "account": "alice", "+draft/reply": "abc"])
        #expect(message.source == "alice!~a@host.example")
        #expect(message.sourceIdentity == IRCSource(nick: "alice", user: "~a", host: "host.example"))
        #expect(message.sourceNick == "alice")
        #expect(message.command == "PRIVMSG")
        #expect(message.parameters == ["#chan", "hello world"])
    }

    @Test func uppercasesLetterCommandsAndKeepsNumerics() throws {
        #expect(try IRCMessage(parsing: "privmsg #a :b").command == "PRIVMSG")
        #expect(try IRCMessage(parsing: ":srv 001 me :Welcome").command == "001")
    }

    @Test func rejectsMalformedLines() {
        #expect(throws: IRCParseError.empty) { try IRCMessage(parsing: "") }
        #expect(throws: IRCParseError.missingCommand) { try IRCMessage(parsing: ":source") }
        #expect(throws: IRCParseError.missingCommand) { try IRCMessage(parsing: "@a=b") }
        #expect(throws: IRCParseError.missingCommand) { try IRCMessage(parsing: "@a=b :src   ") }
        #expect(throws: IRCParseError.invalidSource) { try IRCMessage(parsing: ": PING x") }
        #expect(throws: IRCParseError.invalidCommand) { try IRCMessage(parsing: "PRIV-MSG x") }
        #expect(throws: IRCParseError.invalidCommand) { try IRCMessage(parsing: "0001 x") }
        #expect(throws: IRCParseError.invalidCommand) { try IRCMessage(parsing: "12 x") }
        #expect(throws: IRCParseError.forbiddenCharacter) { try IRCMessage(parsing: "PRIVMSG #a :x\ry") }
        #expect(throws: IRCParseError.forbiddenCharacter) { try IRCMessage(parsing: "PRIVMSG #a :x\ny") }
        #expect(throws: IRCParseError.forbiddenCharacter) { try IRCMessage(parsing: "PRIVMSG #a :x\0y") }
    }

    @Test func lineLimitCountsCRLFAndExcludesTags() throws {
        let head = "PRIVMSG #c :"
        let fits = head + String(repeating: "a", count: 510 - head.utf8.count)
        #expect(fits.utf8.count == 510)
        #expect(try IRCMessage(parsing: fits).parameters[1].utf8.count == 510 - head.utf8.count)
        #expect(throws: IRCParseError.lineTooLong) { try IRCMessage(parsing: fits + "a") }

        // Tags do not count against the 512 bytes.
        let tags = "@" + String(repeating: "k", count: 4000) + "=v "
        #expect(try IRCMessage(parsing: tags + fits).parameters.count == 2)

        // A server-advertised LINELEN lifts the limit.
        #expect(try IRCMessage(parsing: fits + "aaaa", maxLineBytes: 1024).command == "PRIVMSG")
    }

    @Test func tenKilobyteLineIsAnErrorNotACrash() {
        let line = ":n!u@h PRIVMSG #c :" + String(repeating: "x", count: 10_240)
        #expect(throws: IRCParseError.lineTooLong) { try IRCMessage(parsing: line) }
        let bytes = Array(line.utf8)
        #expect(throws: IRCParseError.lineTooLong) { try IRCMessage(parsingUTF8: bytes) }
    }

    @Test func tagsLimitIs8191BytesIncludingAtAndSpace() throws {
        // "@" + key "=" value + " " == 8191 bytes exactly.
        let value = String(repeating: "v", count: 8191 - 4)
        let exact = "@k=" + value + " PING x"
        let message = try IRCMessage(parsing: exact)
        #expect(message.tags["k"]?.utf8.count == 8187)
        #expect(throws: IRCParseError.tagsTooLong) { try IRCMessage(parsing: "@k=v" + value + " PING x") }

        let nineThousand = "@a=" + String(repeating: "b", count: 9000) + " :s PRIVMSG #c :hi"
        #expect(throws: IRCParseError.tagsTooLong) { try IRCMessage(parsing: nineThousand) }
        // Without a space after the tags the whole line is the tags section.
        #expect(throws: IRCParseError.tagsTooLong) {
            try IRCMessage(parsing: "@a=" + String(repeating: "b", count: 9000))
        }
    }

    @Test func tagEscapingRoundTrips() throws {
        let values = [
            "plain", "semi;colon", "two  spaces", "back\\slash", "cr\rlf\n", "\\s literally", "trailing\\",
            ";;; \\\\ \r\n", "ünïcødé 🌍", "",
        ]
        for value in values {
            let message = IRCMessage(
                tags: ["k": value, "+client/only": value], command: "TAGMSG", parameters: ["#c"])
            let line = try message.serializedChecked()
            #expect(!line.utf8.contains(0x0D) && !line.utf8.contains(0x0A))
            let parsed = try IRCMessage(parsing: line)
            #expect(parsed.tags["k"] == value)
            #expect(parsed.tags["+client/only"] == value)
        }
        #expect(IRCMessage(tags: ["a": "x y;z"], command: "TAGMSG").serialized() == "@a=x\\sy\\:z TAGMSG")
    }

    @Test func unescapeRulesForUnknownAndTrailingBackslash() throws {
        let message = try IRCMessage(parsing: "@a=x\\y;b=end\\;c=\\\\n;d= PING p")
        #expect(message.tags == ["a": "xy", "b": "end", "c": "\\n", "d": ""])
    }

    @Test func tagKeysAreSortedAndValuelessTagsStayBare() {
        let message = IRCMessage(tags: ["z": "1", "a": "", "m": "2"], command: "TAGMSG", parameters: ["#c"])
        #expect(message.serialized() == "@a;m=2;z=1 TAGMSG #c")
    }

    @Test func trailingColonAddedOnlyWhenNeeded() {
        #expect(IRCMessage.privmsg("#c", "hi").serialized() == "PRIVMSG #c hi")
        #expect(IRCMessage.privmsg("#c", "hi there").serialized() == "PRIVMSG #c :hi there")
        #expect(IRCMessage.privmsg("#c", ":)").serialized() == "PRIVMSG #c ::)")
        #expect(IRCMessage.privmsg("#c", "").serialized() == "PRIVMSG #c :")
        #expect(IRCMessage(command: "QUIT").serialized() == "QUIT")
        #expect(IRCMessage.user("bot", realName: "On The Map").serialized() == "USER bot 0 * :On The Map")
    }

    @Test func serializedNeverEmitsLineBreaksOrNul() throws {
        let evil = IRCMessage(
            tags: ["ok": "a\r\nb\0c", "bad key": "x"],
            source: "evil\r\nsource",
            command: "PRIV\r\nMSG",
            parameters: ["#c", "hi\r\nQUIT :bye\0"]
        )
        let line = evil.serialized()
        #expect(!line.utf8.contains(0x0D))
        #expect(!line.utf8.contains(0x0A))
        #expect(!line.utf8.contains(0))
        #expect(line == "@ok=a\\r\\nbc PRIVMSG #c :hi  QUIT :bye ")
        let reparsed = try IRCMessage(parsing: line)
        #expect(reparsed.parameters == ["#c", "hi  QUIT :bye "])

        #expect(throws: IRCSerializationError.forbiddenCharacter(parameterIndex: 1)) {
            try IRCMessage.privmsg("#c", "a\nb").serializedChecked()
        }
        #expect(throws: IRCSerializationError.invalidTagKey("bad key")) {
            try IRCMessage(tags: ["bad key": ""], command: "PING").serializedChecked()
        }
        #expect(throws: IRCSerializationError.invalidSource) {
            try IRCMessage(source: "a b", command: "PING").serializedChecked()
        }
        #expect(throws: IRCSerializationError.invalidCommand) {
            try IRCMessage(command: "").serializedChecked()
        }
        #expect(IRCMessage(command: "").serialized() == "NOOP")
    }

    @Test func invalidMiddleParameterBecomesTrailingAndEndsTheLine() throws {
        let message = IRCMessage(command: "PRIVMSG", parameters: ["two words", "text"])
        #expect(message.serialized() == "PRIVMSG :two words")
        #expect(IRCMessage(command: "MODE", parameters: ["#c", "", "x"]).serialized() == "MODE #c :")
        #expect(IRCMessage(command: "MODE", parameters: [":x", "y"]).serialized() == "MODE ::x")
        #expect(throws: IRCSerializationError.invalidMiddleParameter(index: 0)) {
            try message.serializedChecked()
        }
    }

    @Test func multipleSpacesBetweenAtomsAreAccepted() throws {
        let message = try IRCMessage(parsing: "@a=b   :src    MODE   #c   +o    nick   ")
        #expect(message.source == "src")
        #expect(message.parameters == ["#c", "+o", "nick"])
    }

    @Test func parsesSubstringsAndRawBytes() throws {
        let buffer = "xx PING :token yy"
        let slice = buffer.dropFirst(3).dropLast(3)
        #expect(try IRCMessage(parsing: slice) == IRCMessage(command: "PING", parameters: ["token"]))

        var bytes = Array("PRIVMSG #c :caf".utf8)
        bytes.append(0xE9)  // Latin-1 "é" — invalid UTF-8, repaired.
        let message = try IRCMessage(parsingUTF8: bytes)
        #expect(message.parameters[1] == "caf\u{FFFD}")
    }

    @Test func roundTripsAVarietyOfServerLines() throws {
        let lines = [
            ":irc.example.net 353 bot = #c :bot @alice +bob",
            "@time=2026-01-01T00:00:00Z :n!u@h JOIN #c acct :Real Name",
            ":irc.example.net 005 bot CHANTYPES=# PREFIX=(ov)@+ :are supported by this server",
            "PING irc.example.net",
            ":n!u@h QUIT :Quit: bye",
            "@+typing=active :n!u@h TAGMSG #c",
            ":n!u@h PRIVMSG #c :\u{01}ACTION waves\u{01}",
            ":n!u@h PRIVMSG #c :こんにちは 世界 🌏",
        ]
        for line in lines {
            let message = try IRCMessage(parsing: line)
            #expect(message.serialized() == line)
            #expect(try IRCMessage(parsing: message.serialized()) == message)
        }
        // A trailing colon that is not needed is dropped, the message stays the same.
        let ping = try IRCMessage(parsing: "PING :irc.example.net")
        #expect(ping.serialized() == "PING irc.example.net")
    }

    @Test func convenienceConstructors() {
        #expect(IRCMessage.notice("bob", "hi there").serialized() == "NOTICE bob :hi there")
        #expect(IRCMessage.join("#c", key: "secret").serialized() == "JOIN #c secret")
        #expect(IRCMessage.part("#c", reason: "bye now").serialized() == "PART #c :bye now")
        #expect(IRCMessage.nick("bot").serialized() == "NICK bot")
        #expect(IRCMessage.pong("irc.example.net").serialized() == "PONG irc.example.net")
        #expect(IRCMessage.quit("going away").serialized() == "QUIT :going away")
        #expect(
            IRCMessage.cap("REQ", "message-tags server-time").serialized()
                == "CAP REQ :message-tags server-time")
    }

    @Test func ctcpRecognitionAndReplies() throws {
        let request = try IRCMessage(parsing: ":bob!b@h PRIVMSG bot :\u{01}version\u{01}")
        #expect(request.ctcp == CTCP(verb: "VERSION"))
        let ping = try IRCMessage(parsing: ":bob!b@h PRIVMSG bot :\u{01}PING 12345 678")
        #expect(ping.ctcp == CTCP(verb: "PING", arguments: "12345 678"))
        #expect(try IRCMessage(parsing: ":bob!b@h PRIVMSG bot :plain text").ctcp == nil)
        #expect(CTCP(parsing: "\u{01}\u{01}") == nil)

        let reply = IRCMessage.ctcpReply("bob", CTCP(verb: "VERSION", arguments: "OnTheMap 1.0\u{01}\r\n"))
        #expect(reply.serialized() == "NOTICE bob :\u{01}VERSION OnTheMap 1.0\u{01}")
        #expect(IRCMessage.action("#c", "waves").serialized() == "PRIVMSG #c :\u{01}ACTION waves\u{01}")
    }

    @Test func sourceParsingEdgeCases() {
        #expect(IRCSource(parsing: "irc.example.net").looksLikeServer)
        #expect(!IRCSource(parsing: "nick!u@h").looksLikeServer)
        #expect(IRCSource(parsing: "a!b@c@d") == IRCSource(nick: "a", user: "b", host: "c@d"))
        #expect(IRCSource(parsing: "") == IRCSource(nick: ""))
    }
}

@Suite("IRCMessage helpers")
struct IRCMessageHelperTests {
    @Test func numerics() throws {
        #expect(try IRCMessage(parsing: ":s 001 me :hi").numeric == 1)
        #expect(try IRCMessage(parsing: ":s 433 * bot :in use").numeric == 433)
        #expect(IRCMessage.privmsg("#c", "x").numeric == nil)
    }

    @Test func redactionHidesCredentials() {
        #expect(IRCMessage(command: "PASS", parameters: ["hunter2"]).redactedForLogging == "PASS <redacted>")
        let sasl = IRCMessage(command: "AUTHENTICATE", parameters: ["AGJvdABodW50ZXIy"])
        #expect(!sasl.redactedForLogging.contains("AGJvdABodW50ZXIy"))
        let identify = IRCMessage.privmsg("NickServ", "IDENTIFY bot hunter2")
        #expect(identify.redactedForLogging == "PRIVMSG NickServ :IDENTIFY <redacted>")
        let chat = IRCMessage.privmsg("#c", "IDENTIFY is a word")
        #expect(chat.redactedForLogging == chat.serialized())
    }
}
