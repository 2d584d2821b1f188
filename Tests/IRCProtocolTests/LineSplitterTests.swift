import Testing

@testable import IRCProtocol

@Suite("LineSplitter")
struct LineSplitterTests {
    static let nick = "OnTheMap"
    static let target = "#onthemap"

    /// The line the server would relay, with the worst-case user and host.
    static func relayed(
        _ text: String, command: String = "PRIVMSG", nick: String = nick, target: String = target
    )
        -> String
    {
        let user = "~" + String(repeating: "u", count: 11)
        let host = String(repeating: "h", count: 63)
        return ":\(nick)!\(user)@\(host) \(command) \(target) :\(text)\r\n"
    }

    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    }

    @Test func shortTextIsOneLine() {
        let splitter = LineSplitter()
        #expect(splitter.split("hello world", target: Self.target, nick: Self.nick) == ["hello world"])
        #expect(splitter.split("   ", target: Self.target, nick: Self.nick).isEmpty)
    }

    @Test func budgetAccountsForWorstCasePrefix() {
        let splitter = LineSplitter()
        let budget = splitter.textBudget(target: Self.target, nick: Self.nick)
        #expect(Self.relayed(String(repeating: "x", count: budget)).utf8.count == 512)
        let known = splitter.textBudget(target: Self.target, nick: Self.nick, userHost: "bot@a.b")
        #expect(known > budget)
        #expect(splitter.textBudget(command: "NOTICE", target: Self.target, nick: Self.nick) == budget + 1)
    }

    @Test func asciiTextFitsAndPreservesWords() {
        let sentence = (0..<200).map { "word\($0)" }.joined(separator: " ")
        let splitter = LineSplitter(maxLines: 10)
        let lines = splitter.split(sentence, target: Self.target, nick: Self.nick)
        #expect(lines.count > 1)
        for line in lines {
            #expect(Self.relayed(line).utf8.count <= 512)
            #expect(!line.hasPrefix(" ") && !line.hasSuffix(" "))
        }
        #expect(Self.words(lines.joined(separator: " ")) == Self.words(sentence))
    }

    @Test(arguments: ["PRIVMSG", "NOTICE"])
    func multibyteTextNeverSplitsScalars(command: String) {
        let pieces = ["東京", "😀", "Zürich", "👩‍👩‍👧", "北京市", "São Paulo", "🇵🇹", "ありがとう"]
        let text = (0..<300).map { pieces[$0 % pieces.count] }.joined(separator: " ")
        let splitter = LineSplitter(maxLines: 20)
        let lines = splitter.split(text, command: command, target: "#日本", nick: "ボット")
        #expect(lines.count > 2)
        for line in lines {
            #expect(Self.relayed(line, command: command, nick: "ボット", target: "#日本").utf8.count <= 512)
            // Every piece is valid UTF-8 on its own and re-decodes identically.
            #expect(String(decoding: Array(line.utf8), as: UTF8.self) == line)
        }
        #expect(Self.words(lines.joined(separator: " ")) == Self.words(text))
    }

    @Test func overlongWordsAreHardSplitBetweenClusters() {
        let splitter = LineSplitter(maxLines: 10)
        let url = "https://example.com/" + String(repeating: "abcdefghij", count: 120)
        let cjk = String(repeating: "漢", count: 400)  // 1200 bytes, no spaces
        for word in [url, cjk] {
            let lines = splitter.split("see " + word + " end", target: Self.target, nick: Self.nick)
            for line in lines {
                #expect(Self.relayed(line).utf8.count <= 512)
            }
            #expect(String(lines.joined().filter { $0 != " " }) == ("see" + word + "end"))
        }
        let emojiRun = String(repeating: "👩‍👩‍👧", count: 60)  // clusters of 18 bytes
        let lines = splitter.split(emojiRun, target: Self.target, nick: Self.nick)
        #expect(lines.joined() == emojiRun)
        #expect(lines.allSatisfy { $0.count * 18 == $0.utf8.count })
    }

    @Test func capIsRespectedAndTruncationMarked() {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 200)
        for cap in [1, 3, 5] {
            let lines = LineSplitter(maxLines: cap).split(text, target: Self.target, nick: Self.nick)
            #expect(lines.count == cap)
            #expect(lines.last?.hasSuffix("…") == true)
            for line in lines {
                #expect(Self.relayed(line).utf8.count <= 512)
            }
        }
        let exact = LineSplitter(maxLines: 3).split("one\ntwo\nthree", target: Self.target, nick: Self.nick)
        #expect(exact == ["one", "two", "three"])
        let over = LineSplitter(maxLines: 2).split("one\ntwo\nthree", target: Self.target, nick: Self.nick)
        #expect(over == ["one", "two…"])
    }

    @Test func lineFeedsStartNewLinesAndCRNulBecomeSpaces() {
        let lines = LineSplitter().split("a\r\nb\n\n c\rd\0e", target: Self.target, nick: Self.nick)
        #expect(lines == ["a", "b", "c d e"])
    }

    @Test func honoursLineLenAndKnownUserHost() throws {
        var support = ServerSupport()
        support.apply(try IRCMessage(parsing: ":s 005 me LINELEN=1024 USERLEN=20 HOSTLEN=80 :ok"))
        let splitter = LineSplitter(serverSupport: support, maxLines: 4)
        #expect(splitter.lineLength == 1024)
        #expect(splitter.worstCaseUserLength == 21)
        #expect(splitter.worstCaseHostLength == 80)
        let budget = splitter.textBudget(target: "#c", nick: "bot")
        #expect(budget == 1024 - (":bot!".utf8.count + 21 + 1 + 80 + " PRIVMSG #c :".utf8.count + 2))
        let small = LineSplitter().textBudget(target: "#c", nick: "bot", userHost: "~bot@1.2.3.4")
        #expect(small == 512 - ":bot!~bot@1.2.3.4 PRIVMSG #c :\r\n".utf8.count)
    }

    @Test func messagesCarryTheTextAndSerializeWithinLimit() throws {
        let text = String(repeating: "Entfernung 42 km — café ", count: 60)
        let messages = LineSplitter(maxLines: 3).messages(
            text, command: "NOTICE", target: "alice", nick: Self.nick)
        #expect(messages.count == 3)
        for message in messages {
            #expect(message.command == "NOTICE")
            #expect(message.parameters.first == "alice")
            let relayed =
                ":\(Self.nick)!~uuuuuuuuuuu@\(String(repeating: "h", count: 63)) \(message.serialized())\r\n"
            #expect(relayed.utf8.count <= 512)
        }
    }

    /// Text that already fits skips the splitting by characters; both ways give the same lines.
    @Test func shortcutForTextThatFitsAgreesWithSplittingByCharacters() {
        let pieces = ["a", "b", " ", "  ", "\n", "\r", "\r\n", "\0", "\t", "é", "e\u{301}", "\u{301}", "🌍", "word"]
        var generator = RobustnessTests.SplitMix64(state: 12)
        let splitter = LineSplitter(maxLines: 3)
        for _ in 0..<20_000 {
            let text = generator.text(of: pieces, fewerThan: 24)
            let budget = 32 + Int(generator.next() % 16)
            #expect(
                splitter.split(text, budget: budget) == splitter.splitByCharacters(text, budget: budget),
                "\(text.debugDescription) budget \(budget)")
        }
        #expect(LineSplitter.fitsAsIs("pong", budget: 40))
        #expect(!LineSplitter.fitsAsIs("", budget: 40))
        #expect(!LineSplitter.fitsAsIs("a  b", budget: 40))
        #expect(!LineSplitter.fitsAsIs(String(repeating: "x", count: 41), budget: 40))
    }
}
