import IRCProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Measures IRC line parsing and serialization throughput on a realistic mix of server lines.
enum IRCParseBenchmark {
    /// Seconds spent on each measured phase.
    static let phaseSeconds = 3.0

    static func run() {
        let lines = sampleLines()
        let messages = lines.compactMap { try? IRCMessage(parsing: $0) }
        guard messages.count == lines.count else {
            print("IRCParseBenchmark: \(lines.count - messages.count) sample lines failed to parse")
            return
        }
        let averageBytes = lines.reduce(0) { $0 + $1.utf8.count } / lines.count
        print("IRC protocol benchmark: \(lines.count) distinct lines, average \(averageBytes) bytes")

        report(
            "parse",
            measure(lines) { line in
                (try? IRCMessage(parsing: line))?.parameters.count ?? 0
            })
        report(
            "serialize",
            measure(messages) { message in
                message.serialized().utf8.count
            })
        report(
            "parse+serialize",
            measure(lines) { line in
                (try? IRCMessage(parsing: line))?.serialized().utf8.count ?? 0
            })
    }

    /// Runs one phase (`parse`, `serialize` or `roundtrip`) a fixed number of passes over the
    /// sample, for instruction/cycle counting with `perf stat`. Returns a checksum.
    static func profile(phase: String, passes: Int) -> Int {
        let lines = sampleLines()
        let messages = lines.compactMap { try? IRCMessage(parsing: $0) }
        var checksum = 0
        for _ in 0..<passes {
            switch phase {
            case "parse":
                for line in lines { checksum &+= (try? IRCMessage(parsing: line))?.parameters.count ?? 0 }
            case "serialize":
                for message in messages { checksum &+= message.serialized().utf8.count }
            default:
                for line in lines {
                    checksum &+= (try? IRCMessage(parsing: line))?.serialized().utf8.count ?? 0
                }
            }
        }
        return checksum
    }

    /// CPU seconds used by this process so far (the machine may be shared, so wall-clock rates
    /// understate single-core speed; both are reported).
    private static func cpuSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    struct Measurement {
        var wallRate: Double
        var cpuRate: Double
        var checksum: Int
    }

    /// Runs `body` over `items` repeatedly for ``phaseSeconds`` and returns lines per second.
    private static func measure<Item>(_ items: [Item], _ body: (Item) -> Int) -> Measurement {
        let clock = ContinuousClock()
        // Warm-up.
        var checksum = 0
        for item in items { checksum &+= body(item) }
        var processed = 0
        let cpuStart = cpuSeconds()
        let start = clock.now
        let deadline = start + .seconds(phaseSeconds)
        while clock.now < deadline {
            for _ in 0..<20 {
                for item in items { checksum &+= body(item) }
            }
            processed += items.count * 20
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = cpuSeconds() - cpuStart
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Measurement(
            wallRate: Double(processed) / seconds,
            cpuRate: Double(processed) / max(cpu, 1e-9),
            checksum: checksum
        )
    }

    private static func report(_ name: String, _ result: Measurement) {
        let padded = name + String(repeating: " ", count: max(0, 16 - name.count))
        print(
            "  \(padded) \(Int(result.wallRate)) lines/s wall-clock, \(Int(result.cpuRate)) lines/s per CPU"
                + " second  (checksum \(result.checksum % 1000))"
        )
    }

    /// A mix resembling what a bot sees on a busy network with IRCv3 capabilities enabled.
    static func sampleLines() -> [String] {
        var lines = [
            "@time=2026-11-22T12:00:00.123Z;account=alice;msgid=Zx8Pq2 "
                + ":alice!~alice@user/alice PRIVMSG #onthemap :!where is bob? anyone seen him today",
            "@time=2026-11-22T12:00:01.456Z;msgid=AbCdEf "
                + ":bob!bob@203.0.113.7 PRIVMSG #onthemap :hi all, I'm in Lisbon this week 🇵🇹",
            "@time=2026-11-22T12:00:02.000Z;account=carol;+draft/reply=Zx8Pq2 "
                + ":carol!~c@2001:db8::1 PRIVMSG #onthemap :@alice he posted a pin near Porto",
            ":dave!dave@example.org PRIVMSG OnTheMap :!near 10km",
            "@time=2026-11-22T12:00:03.000Z :erin!~erin@host-198-51-100-9.example.net JOIN #onthemap erin :Erin E.",
            ":frank!frank@gateway/web/irccloud.com/x-abcdef JOIN :#onthemap",
            ":irc.example.net 353 OnTheMap = #onthemap :OnTheMap @alice +bob carol dave erin frank "
                + "grace heidi ivan judy mallory niaj olivia peggy rupert sybil trent victor walter",
            ":irc.example.net 366 OnTheMap #onthemap :End of /NAMES list.",
            "PING :irc.example.net",
            ":irc.example.net PONG irc.example.net :LAG1732269600",
            ":irc.example.net 005 OnTheMap AWAYLEN=200 CASEMAPPING=rfc1459 CHANLIMIT=#:20 "
                + "CHANMODES=IXbegw,k,FHJLfjl,ABCDKMNOPQRSTcimnprstuz CHANNELLEN=64 CHANTYPES=# "
                + "ELIST=CMNTU EXCEPTS=e EXTBAN=,ABCNOQRSTUacjmnprswz :are supported by this server",
            ":irc.example.net 005 OnTheMap HOSTLEN=64 INVEX=I KICKLEN=255 MAXLIST=IXbegw:100 "
                + "MODES=20 NETWORK=ExampleNet NICKLEN=30 PREFIX=(qaohv)~&@%+ SAFELIST STATUSMSG=~&@%+ "
                + "TARGMAX=ACCEPT:,KICK:1,NAMES:1,NOTICE:20,PRIVMSG:20 :are supported by this server",
            "@time=2026-11-22T12:00:04.000Z :grace!~grace@user/grace QUIT :Quit: Leaving",
            ":heidi!heidi@192.0.2.44 QUIT :Ping timeout: 240 seconds",
            ":NickServ!NickServ@services.example.net NOTICE OnTheMap :You are now identified for OnTheMap.",
            ":irc.example.net NOTICE * :*** Looking up your hostname...",
            ":ivan!~ivan@user/ivan PART #onthemap :see you",
            ":judy!judy@example.com NICK :judy_away",
            ":ChanServ!ChanServ@services.example.net MODE #onthemap +o OnTheMap",
            ":mallory!m@evil.example PRIVMSG #onthemap :\u{01}ACTION waves\u{01}",
            "@batch=xyz;time=2026-11-22T12:00:05.000Z :irc.example.net 332 OnTheMap #onthemap "
                + ":Welcome to On The Map | !help for commands | be nice",
            ":irc.example.net CAP OnTheMap ACK :message-tags server-time account-tag extended-join",
            "@account=niaj :niaj!niaj@user/niaj ACCOUNT niaj",
            ":olivia!o@203.0.113.50 AWAY :gone fishing",
        ]
        // A few long channel messages close to the 512-byte limit.
        let words = "the quick brown fox jumps over the lazy dog near Lisbon and Porto"
        var long = ""
        while long.utf8.count < 400 { long += words + " " }
        lines.append(
            "@time=2026-11-22T12:00:06.000Z;account=peggy :peggy!~peggy@user/peggy PRIVMSG #onthemap :" + long
        )
        lines.append(":rupert!rupert@example.net NOTICE #onthemap :" + long)
        return lines
    }
}
