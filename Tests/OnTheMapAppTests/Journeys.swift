import BotTesting
import Foundation
import Localization
import Testing

/// What each journey does. Steps check what the person sees; a step whose answer is wrong is an
/// `#expect` (the journey goes on, so one fault does not hide the next), a step without which the
/// rest means nothing is a `#require`.
enum Journeys {
    enum Name: String, CaseIterable, Sendable {
        case student, stranger, servicesAccountStudent, operatorWhileRunning, erasureWhileRunning

        /// The commands the journey sends (it fails when it did not send one of them): the `!help`
        /// coverage check counts on them.
        var commands: Set<String> {
            switch self {
            case .student:
                [
                    "help", "ping", "signup", "whoami", "login", "post", "link", "privacy", "unpost", "time", "awake",
                    "overlap", "where", "near", "units", "lang", "list", "refresh", "map", "cancel", "mydata",
                    "logout", "forget",
                ]
            case .stranger: ["where", "near", "time", "list", "awake", "overlap", "map", "whoami", "mydata"]
            case .servicesAccountStudent: ["whoami", "unlink", "post", "login", "logout"]
            case .operatorWhileRunning: ["reload", "status", "refresh", "where", "login"]
            case .erasureWhileRunning: ["login", "post", "whoami", "mydata"]
            }
        }
    }

    /// Runs journey `name` against the store's running bot.
    static func run(_ name: Name) async throws {
        let bot = try #require(JourneyBot.current, "no bot was started for the journey")
        try #require(bot.isRunning, "the bot on \(bot.store) is not running; its log:\n\(bot.logTail())")
        let walk = JourneyWalk()
        do {
            switch name {
            case .student: try await student(bot, walk)
            case .stranger: try await stranger(bot, walk)
            case .servicesAccountStudent: try await servicesAccountStudent(bot, walk)
            case .operatorWhileRunning: try await operatorWhileRunning(bot, walk)
            case .erasureWhileRunning: try await erasureWhileRunning(bot, walk)
            }
        } catch {
            Issue.record("\(name) on \(bot.store) stopped: \(error)\ntranscript:\n\(walk.transcript)")
            throw error
        }
        let missing = name.commands.subtracting(walk.commands)
        #expect(missing.isEmpty, "\(name) did not send \(missing.sorted())")
        if ProcessInfo.processInfo.environment["JOURNEY_TRANSCRIPTS"] == "1" {
            print("== \(name) on \(bot.store)\n\(walk.transcript)")
        }
    }

    /// Every command of the public `!help` list is one some journey walks.
    static func helpCoverage() async throws {
        let bot = try #require(JourneyBot.current, "no bot was started for the journey")
        let walk = JourneyWalk()
        let reader = JourneyPerson(user: try await bot.network.connect("reader"), nick: "reader", walk: walk)
        defer { Task { await reader.user.quit() } }
        let help = try await reader.ask("!help", lines: 2)
        let first = try #require(help.first)
        #expect(first.hasPrefix("Commands: "), "\(help)")
        let listed = first.dropFirst("Commands: ".count).split(separator: " ").filter { $0.hasPrefix("!") }.map {
            String($0.dropFirst()).replacingOccurrences(of: "*", with: "")
        }
        #expect(listed.count > 10, "\(first)")
        let walked = Name.allCases.reduce(into: Set<String>()) { $0.formUnion($1.commands) }.union(["help"])
        let notWalked = listed.filter { !walked.contains($0) }
        #expect(notWalked.isEmpty, "!help lists commands no journey walks: \(notWalked)")
    }

    // MARK: - shared steps

    /// What a reply must not be on a backend whose docs say the command works there.
    static func expectAvailable(_ answer: String, _ what: String) {
        for refusal in ["not available", "cannot do that", "I don't know"] {
            #expect(!answer.contains(refusal), "\(what) answered \"\(answer)\"")
        }
    }

    static func connect(_ bot: JourneyBot, _ nick: String, sasl: String? = nil, walk: JourneyWalk) async throws
        -> JourneyPerson
    {
        JourneyPerson(user: try await bot.network.connect(nick, sasl: sasl), nick: nick, walk: walk)
    }

    static func login(_ person: JourneyPerson, email: String, password: String, name: String) async throws {
        let welcome = try await person.say("!login \(email) \(password)")
        try #require(welcome.contains("Welcome, \(name)!"), "the login answered \"\(welcome)\"")
    }

    /// A cookie jar file for one browser.
    static func browser(_ bot: JourneyBot, _ name: String) -> String { bot.folder.file("\(name).cookies") }

    /// The token of the sign-in link that ends the second line of a private `!map`'s answer, or nil.
    static func signInToken(in answer: [String]) -> String? {
        guard answer.count > 1, let link = answer[1].split(separator: " ").last, let hash = link.range(of: "/signin#")
        else { return nil }
        return String(link[hash.upperBound...])
    }

    /// Opens a sign-in link's `token` as its page's button does (`POST /signin`), as a browser
    /// with the cookie jar `jar` (nil: one that keeps no cookies).
    static func openSignInLink(_ bot: JourneyBot, token: String, jar: String? = nil) async throws -> LiveBotSetup.Answer
    {
        let cookies = jar.map { ["-c", $0, "-b", $0] } ?? []
        return try await LiveBotSetup.curl(
            cookies + [
                "-X", "POST", "-H", "Content-Type: application/json", "--data", "{\"token\": \"\(token)\"}",
                bot.web + "/signin",
            ])
    }

    /// The value of the cookie `name` in curl's cookie jar file `jar`, or nil.
    static func cookie(_ name: String, inJar jar: String) -> String? {
        let text = (try? String(contentsOfFile: jar, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count >= 7, fields[5] == name { return String(fields[6]) }
        }
        return nil
    }

    // MARK: - the student

    static func student(_ bot: JourneyBot, _ walk: JourneyWalk) async throws {
        let ada = try await connect(bot, "ada", walk: walk)
        defer { Task { await ada.user.quit() } }
        try await ada.user.join("#class")

        let help = try await ada.ask("!help", lines: 2)
        #expect(help.first?.hasPrefix("Commands: ") == true, "\(help)")
        #expect(try await ada.say("!ping") == "pong")
        let signup = try await ada.say("!signup")
        #expect(signup.contains("instructor") || signup.contains("http"), "!signup answered \"\(signup)\"")
        #expect(try await ada.say("!whoami").hasPrefix("You are not logged in."))

        // !login, privately.
        try await login(ada, email: JourneyPeople.ada.email, password: JourneyPeople.ada.password, name: "Ada Lovelace")
        let who = try await ada.say("!whoami")
        #expect(who.hasPrefix("You are logged in as Ada Lovelace"), "\(who)")

        // !post in two steps: the place, then the link; the channel hears of it, by name.
        let found = try await ada.ask("!post Lisbon", lines: 2)
        #expect(found[0].hasPrefix("Found Lisbon"), "\(found)")
        #expect(found[1].hasPrefix("Now send your link"), "\(found)")
        let posted = try await ada.say("!link https://ada.example.org/portfolio")
        #expect(posted.hasPrefix("You are on the map: Ada Lovelace — Lisbon"), "\(posted)")
        let announced = try await bot.watcher.waitForMessage(timeout: .seconds(30), "the announcement of Ada's pin") {
            $0.command == "PRIVMSG" && $0.sourceNick == JourneyBot.nick && $0.parameters.first == "#class"
                && ($0.parameters.last ?? "").contains("Ada Lovelace")
        }
        // The example's #class has no key and its class is for the class: the channel hears the name only.
        #expect(
            announced.parameters.last == "Ada Lovelace is on the map — ask me privately, or see the class map",
            "\(announced)")

        // A trip and its early end.
        let trip = try await ada.say("!post Kyoto until in 3 days")
        expectAvailable(trip, "!post Kyoto until in 3 days")
        #expect(trip.contains("Kyoto"), "the trip answered \"\(trip)\"")
        let whereTrip = try await ada.say("!where Ada Lovelace")
        #expect(
            whereTrip.hasPrefix("Ada Lovelace is in Kyoto") && whereTrip.contains(" until "),
            "!where during the trip: \"\(whereTrip)\"")
        let tripEnded = try await ada.say("!unpost trip")
        expectAvailable(tripEnded, "!unpost trip")
        #expect(tripEnded.contains("Lisbon") || tripEnded.lowercased().contains("trip"), "\(tripEnded)")
        let whereHome = try await ada.say("!where Ada Lovelace")
        #expect(whereHome.contains("Lisbon") && !whereHome.contains("Kyoto"), "!where after the trip: \"\(whereHome)\"")

        // Local time, daytime, shared hours.
        let ownTime = try await ada.say("!time")
        #expect(ownTime.hasPrefix("It is ") && ownTime.contains("Lisbon"), "!time: \"\(ownTime)\"")
        let tokyoTime = try await ada.say("!time Tokyo")
        #expect(
            tokyoTime.hasPrefix("It is ") && tokyoTime.contains("Tokyo") && tokyoTime.contains("UTC+9"), "\(tokyoTime)")
        let noorTime = try await ada.say("!time Noor Haddad")
        #expect(noorTime.contains("for Noor Haddad") && noorTime.contains("Tokyo"), "\(noorTime)")
        let awake = try await ada.ask("!awake")
        // Who is awake depends on the hour the suite runs: the count of classmates is always said.
        #expect(
            awake.first?.contains("now for ") == true && awake.first?.contains("of 2 classmates") == true, "\(awake)")
        let overlap = try await ada.say("!overlap Noor Haddad")
        #expect(overlap.contains("your time") || overlap.contains("none today"), "!overlap: \"\(overlap)\"")

        // Lookups.
        let whereNoor = try await ada.say("!where Noor Haddad")
        #expect(whereNoor.contains("Noor Haddad — Tokyo"), "!where: \"\(whereNoor)\"")
        let near = try await ada.ask("!near")
        #expect(near.first?.hasPrefix("Nearest to your pin (Lisbon, Portugal)") == true, "!near: \(near)")
        #expect(near.contains { $0.hasPrefix("Wanjiru Kamau — ~") && $0.contains(" km") }, "!near: \(near)")
        #expect(try await ada.say("!units mi").hasPrefix("OK, I will show you distances in miles"))
        // In French for a while: her unit stays hers; `!lang auto` brings the class's English back.
        let french = Catalogs.bundled.phrasebook(.french)
        #expect(try await ada.say("!lang fr") == french("lang.set", ["language": "français (fr)"]))
        #expect(try await ada.say("!units") == french("units.current", ["unit": "mi", "command": "!units"]))
        #expect(
            try await ada.say("!lang auto")
                == Catalogs.bundled.phrasebook(.english)("lang.reset", ["language": "English (en)"]))
        let nearNairobi = try await ada.ask("!near Nairobi")
        #expect(nearNairobi.first?.hasPrefix("Nearest to Nairobi") == true, "!near Nairobi: \(nearNairobi)")
        #expect(
            nearNairobi.contains { $0.hasPrefix("Noor Haddad — ~") && $0.contains(" mi — Tokyo") }, "\(nearNairobi)")
        let list = try await ada.ask("!list")
        #expect(list.joined(separator: "\n").contains("Ada Lovelace — Lisbon"), "!list: \(list)")
        let refresh = try await ada.ask("!refresh")
        #expect(refresh.joined().contains("new"), "!refresh: \(refresh)")

        // !map: in the channel the plain address; privately a sign-in link a browser opens.
        let channelMap = try await ada.sayInChannel("#class", "!map")
        #expect(channelMap.contains(bot.web) && !channelMap.contains("signin"), "\(channelMap)")
        let map = try await ada.ask("!map", lines: 2)
        #expect(map[0].contains(bot.web), "\(map)")
        let token = try #require(signInToken(in: map), "no sign-in link in \(map)")
        let jar = browser(bot, "ada")
        // The page the link opens (its fragment, the token, never reaches the server).
        let page = try await LiveBotSetup.curl([
            "-c", jar, "-b", jar,
            String(map[1].split(separator: " ").last ?? "").replacingOccurrences(of: "#" + token, with: ""),
        ])
        #expect(page.status == 200, "the sign-in page: \(page.status)")
        let signIn = try await openSignInLink(bot, token: token, jar: jar)
        #expect(signIn.status == 200, "signing in with the link: \(signIn.status) \(signIn.text.prefix(300))")
        let pins = try await LiveBotSetup.curl(["-b", jar, bot.web + "/api/locations.json"])
        #expect(pins.status == 200, "the map's pins as Ada's browser: \(pins.status) \(pins.text.prefix(300))")
        let names = (pins.json["pins"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(
            names.contains("Ada Lovelace") && names.contains("Noor Haddad"), "the map's pins: \(pins.text.prefix(500))")
        let api = try await LiveBotSetup.curl(["-b", jar, bot.web + "/v1/StudentLocation?limit=10"])
        #expect(api.status == 200, "/v1/StudentLocation as Ada's browser: \(api.status)")
        let used = try await openSignInLink(bot, token: token)
        #expect(used.status != 200, "a sign-in link works once")

        // A street typed: the bot's log keeps neither it nor who typed it (checked at the end).
        let street = try await ada.ask("!post 12 Rua Augusta, Lisbon")
        #expect(!street.isEmpty, "!post with a street answered nothing")
        _ = try await ada.ask("!cancel")

        // An unfinished post, ended.
        let oslo = try await ada.ask("!post Oslo", lines: 2)
        #expect(oslo[0].hasPrefix("Found Oslo"), "\(oslo)")
        let cancelled = try await ada.say("!cancel")
        #expect(cancelled.lowercased().contains("cancel") || cancelled.contains("ended"), "!cancel: \"\(cancelled)\"")

        // A move to a town that does not share its region's name (Lisbon does), so that the
        // region level below changes what is stored.
        let gaia = try await ada.ask("!post Vila Nova de Gaia", lines: 2)
        #expect(gaia[0].hasPrefix("Found Vila Nova de Gaia"), "\(gaia)")
        let moved = try await ada.say("!link https://ada.example.org/portfolio")
        #expect(moved.hasPrefix("Your pin is updated: Ada Lovelace — Vila Nova de Gaia"), "\(moved)")

        // !privacy: three lines, then a coarser level re-stores the pin at once.
        let privacy = try await ada.ask("!privacy", lines: 3)
        #expect(privacy.joined().contains("city"), "\(privacy)")
        let region = try await ada.ask("!privacy region")
        #expect(region.joined().contains("region"), "!privacy region: \(region)")
        let whereRegion = try await ada.say("!where Ada Lovelace")
        #expect(whereRegion.contains("Portugal") && !whereRegion.contains("Lisbon, Lisbon"), "\(whereRegion)")
        // The city-level place leaves the database's files before the answer, the SQLite
        // write-ahead log included.
        let shown = try #require(privacy.first?.components(separatedBy: "Your pin shows ").last)
        let cityPlace = String(shown[..<(shown.range(of: " (")?.lowerBound ?? shown.endIndex)])
        #expect(cityPlace.hasPrefix("Vila Nova de Gaia") && !region.joined().contains(cityPlace), "\(region)")
        if bot.store == .postgres {
            // PostgreSQL: no earlier version of the pin waits in the change feed.
            let versions = try await runCommand(
                "/usr/bin/psql",
                [bot.database, "-tAc", "SELECT count(*) FROM pin_versions WHERE map_string = '\(cityPlace)'"])
            #expect(versions.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "pin_versions: \(versions)")
        } else {
            for file in [bot.database, bot.database + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                #expect(bytes.range(of: Data(cityPlace.utf8)) == nil, "\(file) still holds \"\(cityPlace)\"")
            }
        }

        // !unpost asks, then removes.
        let unpostAsk = try await ada.ask("!unpost")
        #expect(unpostAsk.joined().contains("!unpost confirm"), "!unpost: \(unpostAsk)")
        let unposted = try await ada.ask("!unpost confirm")
        expectAvailable(unposted.joined(), "!unpost confirm")
        let gone = try await ada.say("!where Ada Lovelace")
        #expect(!gone.contains("Portugal"), "the pin is still found: \"\(gone)\"")

        // !logout ends the browser's session and a sign-in link given out before it, then back.
        let mapAgain = try await ada.ask("!map", lines: 2)
        let unusedToken = try #require(signInToken(in: mapAgain), "no sign-in link in \(mapAgain)")
        #expect(try await ada.say("!logout").hasPrefix("You are logged out, Ada Lovelace."))
        let pinsAfterLogout = try await LiveBotSetup.curl(["-b", jar, bot.web + "/api/locations.json"])
        #expect(pinsAfterLogout.status != 200, "the browser still reads the class after !logout")
        let linkAfterLogout = try await openSignInLink(bot, token: unusedToken)
        #expect(linkAfterLogout.status != 200, "a sign-in link given before !logout still works")
        try await login(ada, email: JourneyPeople.ada.email, password: JourneyPeople.ada.password, name: "Ada Lovelace")

        // The map page's "Sign out everywhere" ends the IRC login too.
        let mapThird = try await ada.ask("!map", lines: 2)
        let thirdToken = try #require(signInToken(in: mapThird), "no sign-in link in \(mapThird)")
        let secondJar = browser(bot, "ada-second")
        let signedInAgain = try await openSignInLink(bot, token: thirdToken, jar: secondJar)
        #expect(signedInAgain.status == 200, "signing in again: \(signedInAgain.status)")
        let xsrf = try #require(cookie("XSRF-TOKEN", inJar: secondJar), "no XSRF-TOKEN cookie after signing in")
        let everywhere = try await LiveBotSetup.curl([
            "-c", secondJar, "-b", secondJar, "-X", "POST", "-H", "X-XSRF-TOKEN: \(xsrf)",
            bot.web + "/signout?everywhere=1",
        ])
        #expect(everywhere.status == 200, "signing out everywhere: \(everywhere.status) \(everywhere.text.prefix(200))")
        #expect(try await ada.say("!whoami").hasPrefix("You are not logged in."), "the IRC login outlived the web's")
        try await login(ada, email: JourneyPeople.ada.email, password: JourneyPeople.ada.password, name: "Ada Lovelace")

        // !mydata lists what is kept.
        let mydata = try await ada.ask("!mydata")
        #expect(mydata.joined(separator: "\n").contains(JourneyPeople.ada.email), "!mydata: \(mydata)")

        // !forget asks, !forget confirm erases, and the bot no longer knows Ada.
        let forget = try await ada.ask("!forget")
        #expect(forget.first?.hasPrefix("This erases for good") == true, "!forget: \(forget)")
        let erased = try await ada.ask("!forget confirm")
        #expect(erased.first?.hasPrefix("Erased:") == true, "!forget confirm: \(erased)")
        #expect(try await ada.say("!whoami").hasPrefix("You are not logged in."))
        let again = try await ada.say("!login \(JourneyPeople.ada.email) \(JourneyPeople.ada.password)")
        #expect(!again.contains("Welcome"), "the erased account still logs in")

        // The log (config: log.student_data false, the example's default) keeps the commands Ada
        // sent under a pseudonym, and nothing she typed or that names her.
        let log = try String(contentsOfFile: bot.logPath, encoding: .utf8)
        let commands = log.split(separator: "\n").filter { $0.contains("command=post") }
        #expect(!commands.isEmpty && commands.allSatisfy { $0.contains("user=p-") }, "\(commands.prefix(3))")
        for typed in ["Rua Augusta", "ada.example.org", "Ada Lovelace", "ada!", JourneyPeople.ada.email, "Kyoto"] {
            #expect(!log.contains(typed), "the bot's log holds \"\(typed)\"")
        }
    }

    // MARK: - the stranger

    static func stranger(_ bot: JourneyBot, _ walk: JourneyWalk) async throws {
        let mallory = try await connect(bot, "mallory", walk: walk)
        defer { Task { await mallory.user.quit() } }
        #expect(try await mallory.say("!whoami").hasPrefix("You are not logged in."))
        for lookup in [
            "!where Noor Haddad", "!near Tokyo", "!near", "!list", "!time Noor Haddad", "!awake",
            "!overlap Noor Haddad",
        ] {
            let answer = try await mallory.say(lookup)
            let leaked = ["Wanjiru", "Nairobi", "noor.example"] + (lookup.contains("Noor") ? [] : ["Noor"])
            #expect(!leaked.contains(where: answer.contains), "\(lookup) told a stranger: \"\(answer)\"")
            #expect(answer.contains("log in") || answer.contains("login"), "\(lookup) answered \"\(answer)\"")
        }
        let mydata = try await mallory.say("!mydata")
        #expect(mydata.contains("log in"), "!mydata answered \"\(mydata)\"")
        // A private !map gives the address and says how to sign in, never a link.
        let map = try await mallory.ask("!map", lines: 2)
        #expect(map[0].contains(bot.web), "\(map)")
        #expect(!map[1].contains("/signin#") && map[1].contains("log in"), "\(map)")

        // The web: the page and its scripts are public, the pins are not.
        let page = try await LiveBotSetup.curl([bot.web + "/"])
        #expect(page.status == 200, "the map page: \(page.status)")
        for path in [
            "/api/locations.json", "/v1/StudentLocation", "/v1/StudentLocation?limit=100", "/v1/users/noor-tokyo",
        ] {
            let answer = try await LiveBotSetup.curl([bot.web + path])
            #expect(answer.status == 401, "\(path) answered a stranger \(answer.status): \(answer.text.prefix(200))")
            #expect(!answer.text.contains("Noor"), "\(path) told a stranger: \(answer.text.prefix(200))")
        }
        let forged = try await LiveBotSetup.curl(["-H", "Cookie: session=forged", bot.web + "/api/locations.json"])
        #expect(forged.status == 401, "a forged cookie read the pins: \(forged.status)")
    }

    // MARK: - the student known by the network

    static func servicesAccountStudent(_ bot: JourneyBot, _ walk: JourneyWalk) async throws {
        // The operator imports a roster by services account while the bot runs: no password printed.
        let roster = bot.folder.file("services-roster.csv")
        try """
        email,first_name,last_name,irc_account
        \(JourneyPeople.jane.email),\(JourneyPeople.jane.first),\(JourneyPeople.jane.last),\(JourneyPeople.jane.account)
        """.write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await bot.cli(["accounts", "import"], [roster])
        #expect(imported.status == 0, "accounts import: \(imported.output)")
        #expect(imported.output.contains("linked to the services account"), "\(imported.output)")
        #expect(!imported.output.contains("generated password"), "\(imported.output)")

        let jane = try await connect(bot, "jane", sasl: JourneyPeople.jane.account, walk: walk)
        defer { Task { await jane.user.quit() } }
        let who = try await jane.say("!whoami")
        #expect(who == "You are logged in as Jane Doe, through your services account jane.", "\(who)")
        let posted = try await jane.say("!post Seattle | https://jane.example.org")
        #expect(posted.hasPrefix("You are on the map: Jane Doe"), "\(posted)")

        // !unlink ends the login it made.
        let unlinked = try await jane.say("!unlink")
        #expect(unlinked.hasPrefix("Your services account jane is no longer linked"), "!unlink: \"\(unlinked)\"")
        let afterUnlink = try await jane.say("!whoami")
        #expect(afterUnlink.hasPrefix("You are not logged in."), "!whoami after !unlink: \"\(afterUnlink)\"")

        // Linked again by the operator, then unlinked by the operator: the next command finds no login.
        let linked = try await bot.cli(
            ["accounts", "link"], ["--email", JourneyPeople.jane.email, "--irc-account", JourneyPeople.jane.account])
        #expect(linked.status == 0, "accounts link: \(linked.output)")
        let relinked = try await jane.say("!whoami")
        #expect(relinked.contains("through your services account jane"), "!whoami after accounts link: \"\(relinked)\"")
        let operatorUnlink = try await bot.cli(["accounts", "unlink"], ["--email", JourneyPeople.jane.email])
        #expect(operatorUnlink.output.contains("Unlinked"), "accounts unlink: \(operatorUnlink.output)")
        let afterOperator = try await jane.say("!whoami")
        #expect(
            afterOperator.hasPrefix("You are not logged in."), "!whoami after accounts unlink: \"\(afterOperator)\"")

        // A student identified to services links the accounts by logging in with a password; the
        // session that login made belongs to the services account, and !unlink ends it too.
        let lin = try await connect(bot, "lin", sasl: JourneyPeople.lin.account, walk: walk)
        defer { Task { await lin.user.quit() } }
        let welcome = try await lin.say("!login \(JourneyPeople.lin.email) \(JourneyPeople.lin.password)")
        #expect(welcome.contains("Your services account lin is linked"), "\(welcome)")
        let linUnlinked = try await lin.say("!unlink")
        #expect(linUnlinked.hasPrefix("Your services account lin is no longer linked"), "!unlink: \"\(linUnlinked)\"")
        let linAfter = try await lin.say("!whoami")
        #expect(linAfter.hasPrefix("You are not logged in."), "!whoami after !unlink of a !login link: \"\(linAfter)\"")
        // The same by the operator: accounts unlink ends it at the next command.
        _ = try await lin.say("!logout")
        let again = try await lin.say("!login \(JourneyPeople.lin.email) \(JourneyPeople.lin.password)")
        #expect(again.contains("Your services account lin is linked"), "\(again)")
        let linOperator = try await bot.cli(["accounts", "unlink"], ["--email", JourneyPeople.lin.email])
        #expect(linOperator.output.contains("Unlinked"), "accounts unlink: \(linOperator.output)")
        let linAfterOperator = try await lin.say("!whoami")
        #expect(
            linAfterOperator.hasPrefix("You are not logged in."),
            "!whoami after accounts unlink of a !login link: \"\(linAfterOperator)\"")
    }

    // MARK: - the operator

    static func operatorWhileRunning(_ bot: JourneyBot, _ walk: JourneyWalk) async throws {
        // The owner, identified to services, steers the bot.
        let teacher = try await connect(bot, "teacher", sasl: JourneyPeople.ownerAccount, walk: walk)
        defer { Task { await teacher.user.quit() } }
        let status = try await teacher.ask("!status").joined(separator: "\n")
        #expect(status.contains("registered on 127.0.0.1:\(bot.network.port) over TLS as OnTheMapBot"), "\(status)")
        // The backend answers, and what it keeps beyond pins is said: trips among them.
        #expect(
            status.contains("Backend \(bot.store == .sqlite ? "sqlite" : "postgres"): answers; keeps pins, accounts"),
            "\(status)")
        #expect(status.contains("trips"), "\(status)")
        let reload = try await teacher.ask("!reload")
        #expect(reload.first?.hasPrefix("Reloaded ") == true, "!reload: \(reload)")
        let nobody = try await connect(bot, "nobody", walk: walk)
        defer { Task { await nobody.user.quit() } }
        #expect(try await nobody.say("!status") == "!status is for the bot's owners only.")

        // The operator's listener.
        let health = try await LiveBotSetup.curl([bot.operatorURL + "/healthz"])
        #expect(health.status == 200, "/healthz: \(health.status) \(health.text.prefix(300))")
        let metrics = try await LiveBotSetup.curl([bot.operatorURL + "/metrics"])
        #expect(metrics.status == 200 && metrics.text.contains("# TYPE"), "/metrics: \(metrics.status)")

        // A class map moved in at full precision (the example allows exact), then the class's
        // privacy tightened to regions in the config: pins coarsen and pins import follow it.
        let exact = bot.folder.file("exact-pins.csv")
        try """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        grace-mv,Grace,Hopper,"1600 Amphitheatre Parkway, Mountain View",https://grace.example.org,37.4220,-122.0841
        """.write(toFile: exact, atomically: true, encoding: .utf8)
        let importedExact = try await bot.cli(["pins", "import"], ["--precision", "exact", exact])
        #expect(importedExact.status == 0, "pins import --precision exact: \(importedExact.output)")
        let listed = try await bot.cli(["pins", "list"], ["--name", "Grace Hopper"])
        #expect(listed.output.contains("Amphitheatre"), "pins list: \(listed.output)")

        let example = try String(contentsOfFile: bot.config, encoding: .utf8)
        let regionConfig = bot.folder.file("onthemap-region.yaml")
        try JourneyConfig.edit(example, ["privacy.default": "region", "privacy.finest": "region"])
            .write(toFile: regionConfig, atomically: true, encoding: .utf8)
        func cli(_ words: [String], _ rest: [String]) async throws -> (status: Int32, output: String) {
            try await runProcess(bot.executable, words + ["--config", regionConfig] + rest, timeout: .seconds(60))
        }
        let coarsened = try await cli(["pins", "coarsen"], [])
        #expect(coarsened.status == 0, "pins coarsen: \(coarsened.output)")
        let regionPins = bot.folder.file("region-pins.csv")
        try """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        hedy-munich,Hedy,Lamarr,"Marienplatz 1, Munich",https://hedy.example.org,48.1374,11.5755
        """.write(toFile: regionPins, atomically: true, encoding: .utf8)
        let importedRegion = try await cli(["pins", "import"], [regionPins])
        #expect(importedRegion.status == 0, "pins import: \(importedRegion.output)")
        let tooFine = bot.folder.file("too-fine-pins.csv")
        try """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        alan-wilmslow,Alan,Turing,"Adlington Road, Wilmslow",https://alan.example.org,53.3280,-2.2290
        """.write(toFile: tooFine, atomically: true, encoding: .utf8)
        // A precision finer than privacy.finest is refused with a sentence naming the key.
        let importedFine = try await cli(["pins", "import"], ["--precision", "exact", tooFine])
        #expect(importedFine.status != 0, "pins import --precision exact: \(importedFine.output)")
        #expect(importedFine.output.contains("privacy.finest"), "pins import --precision exact: \(importedFine.output)")

        // A student sees the pins as the config's privacy says: regions.
        let noor = try await connect(bot, "noor", walk: walk)
        defer { Task { await noor.user.quit() } }
        try await login(
            noor, email: JourneyPeople.noor.email, password: JourneyPeople.noor.password, name: "Noor Haddad")
        _ = try await noor.say("!refresh")
        let grace = try await noor.say("!where Grace Hopper")
        #expect(
            grace.contains("Grace Hopper — California, United States"),
            "pins coarsen with privacy.default region left: \"\(grace)\"")
        let hedy = try await noor.say("!where Hedy Lamarr")
        #expect(
            hedy.contains("Hedy Lamarr — Bavaria, Germany"),
            "pins import with privacy.default region stored: \"\(hedy)\"")
        let alan = try await noor.say("!where Alan Turing")
        #expect(
            !alan.contains("Adlington") && !alan.contains("Wilmslow"),
            "pins import --precision exact with privacy.finest region stored: \"\(alan)\"")

        // A student's data, for a portability request.
        let export = try await bot.cli(["accounts", "export"], ["--email", JourneyPeople.noor.email])
        #expect(
            export.status == 0 && export.output.contains(JourneyPeople.noor.email), "accounts export: \(export.output)")
    }

    // MARK: - erasure while the bot runs

    static func erasureWhileRunning(_ bot: JourneyBot, _ walk: JourneyWalk) async throws {
        let erin = try await connect(bot, "erin", walk: walk)
        defer { Task { await erin.user.quit() } }
        try await login(
            erin, email: JourneyPeople.erin.email, password: JourneyPeople.erin.password, name: "Erin Quixmoor")
        let opened = try await erin.ask("!post Oslo", lines: 2)
        #expect(opened[0].hasPrefix("Found Oslo"), "\(opened)")
        let mydata = try await erin.ask("!mydata")
        #expect(mydata.joined().contains("Oslo"), "!mydata shows the open post step: \(mydata)")
        let export = try await bot.cli(["accounts", "export"], ["--email", JourneyPeople.erin.email])
        let accountKey = try #require(
            ((try? JSONSerialization.jsonObject(with: Data(export.output.utf8))) as? [String: Any]).flatMap {
                ($0["account"] as? [String: Any])?["accountKey"] as? String ?? $0["accountKey"] as? String
            }, "accounts export gave no account key: \(export.output.prefix(500))")

        let forgot = try await bot.cli(["accounts", "forget"], ["--email", JourneyPeople.erin.email])
        #expect(forgot.status == 0, "accounts forget: \(forgot.output)")

        // Another student's post makes the bot save its open posts: the erased one must not come back.
        let noor = try await connect(bot, "noor2", walk: walk)
        defer { Task { await noor.user.quit() } }
        try await login(
            noor, email: JourneyPeople.noor.email, password: JourneyPeople.noor.password, name: "Noor Haddad")
        _ = try await noor.ask("!post Osaka", lines: 2)
        func expectNothingOfErin(_ when: String) async throws {
            let stored = try await storedText(bot)
            for secret in [accountKey, JourneyPeople.erin.email, "Quixmoor"] {
                let what = secret == accountKey ? "the account key" : secret
                // Only the verdict is shown: the store's text holds other students' password hashes.
                let holds = stored.contains(secret)
                #expect(!holds, "the database holds \(what) of the erased student \(when)")
            }
        }
        try await expectNothingOfErin("after another student's post step")

        // Erin is nobody to the running bot now, and her open step is gone with her.
        let who = try await erin.say("!whoami")
        #expect(who.hasPrefix("You are not logged in."), "!whoami after accounts forget: \"\(who)\"")
        let link = try await erin.say("!post https://erin.example.org")
        #expect(!link.contains("You are on the map"), "the erased student's open post went on: \"\(link)\"")
        try await expectNothingOfErin("after her next commands")
        let exportAfter = try await bot.cli(["accounts", "export"], ["--email", JourneyPeople.erin.email])
        #expect(!exportAfter.output.contains("Oslo"), "accounts export after forget: \(exportAfter.output.prefix(300))")
    }

    /// Everything the store holds, as text: the SQLite file and its log, or PostgreSQL's tables.
    static func storedText(_ bot: JourneyBot) async throws -> String {
        switch bot.store {
        case .sqlite:
            return [bot.database, bot.database + "-wal"].map {
                String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data(), as: UTF8.self)
            }.joined(separator: "\n")
        case .postgres:
            var text = ""
            for table in ["accounts", "sessions", "student_locations", "bot_state"] {
                text += try await runCommand(
                    "/usr/bin/psql", [bot.database, "-At", "-c", "SELECT t::text FROM \(table) t"])
            }
            return text
        }
    }
}
