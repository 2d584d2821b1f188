import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapService
import Testing

@testable import OnTheMapPlugins

/// One hostile line and what the bot must do with it.
struct HostileRow: Sendable, CustomTestStringConvertible {
    enum Venue: Sendable { case channel, privately }

    /// What the bot answers (channel answers are compared without the leading "jane: ").
    enum Reply: Sendable {
        /// Nothing at all: the rule for lines that are not commands for this bot.
        case silence
        /// Exactly these lines.
        case exact([String])
        /// One line or more; the first starts with this.
        case prefix(String)
        /// One line or more; the first matches this regular expression (whole line).
        case pattern(String)
    }

    /// State the row is allowed to change; everything else must be as it was.
    enum Change: Sendable, Hashable {
        /// The open `!post` flow may be replaced (a new place was found).
        case postFlow
    }

    var name: String
    var input: String
    var venue: Venue
    var loggedIn: Bool
    var reply: Reply
    var allowed: Set<Change> = []
    /// Text no reply may contain (a password, a credential in a link, a hostile payload).
    var forbidden: [String] = []

    var testDescription: String {
        "\(name) [\(venue == .channel ? "#class" : "private"), \(loggedIn ? "logged in" : "logged out")]"
    }
}

/// Every command (and some that are not) fed hostile input on the real router and plugins over a
/// temporary SQLite class. Each row: a clear reply (or silence where that is the rule), nothing
/// changed that should not change, and no reply line carrying control characters, a line break,
/// a text-direction override or a password.
@Suite struct HostileInputTests {
    static let long = String(repeating: "a", count: 2_000)
    static let nicknameHint = "(and no one logged in uses that nick)."
    static let loginHint = "You need to log in first: /msg MapBot !login <email> <password>"
    static let hiddenLink =
        "That link has hidden characters in it (line breaks, control or text-direction characters, or codes like %0A); please send the plain address."
    static let keepOpen = " Your place is kept: send !link <link> to finish, or !cancel."
    static let hiddenPlace =
        "That place has hidden characters in it (text-direction or zero-width characters); please type it plainly, e.g. !post Lyon, France"
    static let onlyWebLinks =
        "Only http and https links are accepted; send the address of your page, like https://example.com/your-page."

    static let rows: [HostileRow] = [
        // Empty, whitespace, bare prefix: not commands.
        .init(name: "empty line", input: "", venue: .privately, loggedIn: false, reply: .silence),
        .init(name: "only whitespace", input: "   \t   ", venue: .privately, loggedIn: true, reply: .silence),
        .init(name: "bare prefix", input: "!", venue: .channel, loggedIn: false, reply: .silence),
        .init(
            name: "prefix and spaces", input: "!      ", venue: .privately, loggedIn: true, reply: .silence),
        .init(
            name: "2 KB command word", input: "!" + long, venue: .privately, loggedIn: false, reply: .silence),
        // 2 KB arguments, every command that takes one.
        .init(
            name: "where 2 KB", input: "!where " + long, venue: .privately, loggedIn: false,
            reply: .pattern(
                "Nobody called \"a{40,60}…\" is on the map \\(and no one logged in uses that nick\\)\\.")),
        .init(
            name: "near 2 KB", input: "!near " + long, venue: .channel, loggedIn: false,
            reply: .pattern(
                "No place called \"a{40,60}…\" was found; try \"City, Country\", e\\.g\\. !near Lyon, France")),
        .init(
            name: "time 2 KB", input: "!time " + long, venue: .channel, loggedIn: false,
            reply: .pattern(
                "Nobody called \"a{40,60}…\" is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e\\.g\\. !time Tokyo, Japan"
            )),
        .init(
            name: "overlap 2 KB", input: "!overlap " + long, venue: .privately, loggedIn: true,
            reply: .prefix(
                "You have no pin yet, so I do not know your time: /msg MapBot !post <place> — or ask !time aaaa")),
        .init(
            name: "time with CR LF and a fake PRIVMSG", input: "!time Tom\r\nPRIVMSG #class :pwned",
            venue: .privately, loggedIn: false,
            reply: .exact([
                "Nobody called \"Tom PRIVMSG #class :pwned\" is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e.g. !time Tokyo, Japan"
            ])),
        .init(
            name: "awake with NUL", input: "!awake now\u{00}QUIT", venue: .channel, loggedIn: true,
            reply: .prefix("It is daytime (08:00–22:59) now for ")),
        .init(
            name: "overlap logged out with a bell", input: "!overlap Tom\u{07}", venue: .privately, loggedIn: false,
            reply: .prefix("For your own time, log in first:")),
        .init(
            name: "post 2 KB", input: "!post " + long + " | https://x.example", venue: .privately, loggedIn: true,
            reply: .exact(["That place is too long; try \"City, Country\", e.g. !post Lyon, France"])),
        .init(
            name: "link 2 KB", input: "!link https://example.com/" + long + long, venue: .privately,
            loggedIn: true, reply: .exact(["That link is longer than 2,048 bytes; please send a shorter one."])
        ),
        .init(
            name: "login 2 KB email", input: "!login \(long)@class.test whatever-password", venue: .privately,
            loggedIn: false, reply: .exact(["Wrong email or password."]), forbidden: ["whatever-password"]),
        .init(
            name: "units 2 KB", input: "!units " + long, venue: .channel, loggedIn: true,
            reply: .exact(["Units are km or mi: !units km or !units mi."])),
        .init(
            name: "map 2 KB", input: "!map " + long, venue: .channel, loggedIn: false,
            reply: .pattern("The class map around a{40,96}…: https://map\\.example/class\\?focus=a{50,100}…?")
        ),
        .init(
            name: "help 2 KB", input: "!help " + long, venue: .privately, loggedIn: false,
            reply: .pattern("There is no command \"!a{20,32}…\"\\. Try !help for the list\\.")),
        .init(
            name: "list 2 KB", input: "!list " + long, venue: .privately, loggedIn: false,
            reply: .exact(["The page is a number: !list 2"])),
        // Control characters and mIRC colour codes.
        .init(
            name: "where with BEL and ESC", input: "!where Ja\u{07}ne\u{1B}[31m", venue: .channel,
            loggedIn: false,
            reply: .exact(["Nobody called \"Jane[31m\" is on the map \(nicknameHint)"])),
        .init(
            name: "where with mIRC colours finds the name",
            input: "!where \u{03}04,01Tom\u{0F} \u{02}Tacoma\u{02}",
            venue: .channel, loggedIn: false,
            reply: .prefix("Tom Tacoma — Seattle, WA — https://example.org/me — ")),
        .init(
            name: "bold command word", input: "!\u{02}near\u{02} Seattle", venue: .channel, loggedIn: false,
            reply: .exact([
                "Nearest to Seattle, Washington, United States:",
                "Tom Tacoma — 0 km — Seattle, WA — https://example.org/me",
            ])),
        .init(
            name: "coloured unknown command, addressed", input: "MapBot: \u{03}4frob\u{03}", venue: .channel,
            loggedIn: false, reply: .exact(["I don't know the command \"frob\". Try !help."])),
        .init(
            name: "lang 2 KB", input: "!lang " + long, venue: .channel, loggedIn: true,
            reply: .prefix("I have no language \"aaaaaaaaaaaaaaaaaaaa")),
        .init(
            name: "lang with colour and bidi", input: "!lang \u{03}12es\u{202E}\u{16}", venue: .privately,
            loggedIn: true,
            reply: .exact([Catalogs.bundled.phrasebook(.spanish)("lang.set", ["language": "español (es)"])])),
        .init(
            name: "units with colour", input: "!units \u{03}12km\u{16}x", venue: .privately, loggedIn: true,
            reply: .exact(["Units are km or mi: !units km or !units mi."])),
        .init(
            name: "ping with junk", input: "!ping \u{03}4\u{00}x", venue: .channel, loggedIn: false,
            reply: .exact(["pong"])),
        // CR, LF, NUL raw (router level: inside the argument) and percent-encoded.
        .init(
            name: "where with CR LF and a fake PRIVMSG", input: "!where Tom\r\nPRIVMSG #class :pwned",
            venue: .privately, loggedIn: false,
            reply: .exact(["Nobody called \"Tom PRIVMSG #class :pwned\" is on the map \(nicknameHint)"])),
        .init(
            name: "near with NUL", input: "!near Seattle\u{00}QUIT", venue: .privately, loggedIn: false,
            reply: .exact(["No place called \"SeattleQUIT\" was found; try \"City, Country\", e.g. !near Lyon, France"])
        ),
        .init(
            name: "post with percent-encoded CR LF", input: "!post Paris%0D%0APRIVMSG #class :x | https://x.example",
            venue: .privately,
            loggedIn: true,
            reply: .exact([
                "No place called \"Paris%0D%0APRIVMSG #class :x\" was found; try \"City, Country\", e.g. !post Lyon, France"
            ])),
        .init(
            name: "link with percent-encoded CR LF", input: "!link https://example.com/a%0D%0AJOIN%20#evil",
            venue: .privately, loggedIn: true, reply: .exact([hiddenLink])),
        .init(
            name: "one-shot post with percent-encoded NUL", input: "!post Seattle | https://example.com/%00",
            venue: .privately, loggedIn: true,
            reply: .pattern(
                "Found Seattle, .*\\. " + NSRegularExpression.escapedPattern(for: hiddenLink + keepOpen)),
            allowed: [.postFlow]),
        .init(
            name: "link with raw LF", input: "!link https://example.com/a\nPRIVMSG #class :x",
            venue: .privately,
            loggedIn: true, reply: .exact([hiddenLink])),
        .init(
            name: "login password with CR LF", input: "!login jane@class.test correct horse\r\nbattery",
            venue: .privately, loggedIn: false, reply: .exact(["Wrong email or password."]),
            forbidden: ["correct horse"]),
        .init(
            name: "login percent-encoded email", input: "!login jane%40class.test \(ClassFixture.password)",
            venue: .privately, loggedIn: false, reply: .exact(["Wrong email or password."])),
        // Right-to-left overrides and invisible direction marks.
        .init(
            name: "post place with RLO is refused", input: "!post Sea\u{202E}ttle | not-a-link", venue: .privately,
            loggedIn: true, reply: .exact([hiddenPlace]), forbidden: ["\u{202E}"]),
        .init(
            name: "post place with a zero-width space is refused",
            input: "!post Paris\u{200B}, France | https://jane.example",
            venue: .privately, loggedIn: true, reply: .exact([hiddenPlace])),
        .init(
            name: "post place with a soft hyphen is refused", input: "!post Ber\u{00AD}lin | https://jane.example",
            venue: .privately,
            loggedIn: true, reply: .exact([hiddenPlace])),
        .init(
            name: "post place with colour is cleaned", input: "!post \u{03}4Seattle\u{0F} | not-a-link",
            venue: .privately,
            loggedIn: true, reply: .prefix("Found Seattle, "), allowed: [.postFlow]),
        .init(
            name: "link with RLO", input: "!link https://evil.example/\u{202E}gpj.exe", venue: .privately,
            loggedIn: true, reply: .exact([hiddenLink])),
        .init(
            name: "link with percent-encoded RLO", input: "!link https://evil.example/%E2%80%AEgpj.exe",
            venue: .privately, loggedIn: true, reply: .exact([hiddenLink])),
        .init(
            name: "where with RLO", input: "!where \u{202E}moT", venue: .channel, loggedIn: false,
            reply: .exact(["Nobody called \"moT\" is on the map \(nicknameHint)"])),
        .init(
            name: "help with RLO", input: "!help \u{202E}post", venue: .privately, loggedIn: false,
            reply: .prefix("!post <place> | <link>, or !post <place> until <date> — ")),
        .init(
            name: "register name with RLO", input: "!register eve@class.test longpassword1 Eve \u{202E}live",
            venue: .privately, loggedIn: false,
            reply: .exact([
                "Your name has control, colour, text-direction or zero-width characters in it; please type it plainly."
            ]),
            forbidden: ["longpassword1"]),
        .init(
            name: "register name with a zero-width space",
            input: "!register eve@class.test longpassword1 Radia\u{200B} Perlman", venue: .privately, loggedIn: false,
            reply: .exact([
                "Your name has control, colour, text-direction or zero-width characters in it; please type it plainly."
            ]),
            forbidden: ["longpassword1"]),
        // Emoji and invalid UTF-8 (already U+FFFD once decoded).
        .init(
            name: "where emoji", input: "!where 🗺️🧭", venue: .channel, loggedIn: false,
            reply: .exact(["Nobody called \"🗺️🧭\" is on the map \(nicknameHint)"])),
        .init(
            name: "near emoji", input: "!near 🌍", venue: .privately, loggedIn: false,
            reply: .exact(["\"🌍\" is not a place: the map needs a city, region or country, e.g. !near Lyon, France"])),
        .init(
            name: "post emoji", input: "!post 🏠🏠🏠 | https://x.example", venue: .privately, loggedIn: true,
            reply: .exact(["\"🏠🏠🏠\" is not a place: the map needs a city, region or country, e.g. !post Lyon, France"])),
        .init(
            name: "where invalid UTF-8", input: "!where \u{FFFD}\u{FFFD}(", venue: .privately,
            loggedIn: false,
            reply: .exact(["Nobody called \"\u{FFFD}\u{FFFD}(\" is on the map \(nicknameHint)"])),
        // Links: other schemes and credentials.
        .init(
            name: "javascript link", input: "!link javascript:alert(document.cookie)", venue: .privately,
            loggedIn: true,
            reply: .exact([onlyWebLinks])),
        .init(
            name: "data link one-shot", input: "!post Seattle | data:text/html,<script>alert(1)</script>",
            venue: .privately, loggedIn: true,
            reply: .pattern(
                "Found Seattle, .*\\. " + NSRegularExpression.escapedPattern(for: onlyWebLinks)
                    + NSRegularExpression.escapedPattern(for: keepOpen)),
            allowed: [.postFlow], forbidden: ["<script>"]),
        .init(
            name: "file link", input: "!link file:///etc/passwd", venue: .privately, loggedIn: true,
            reply: .exact([onlyWebLinks])),
        .init(
            name: "link with credentials", input: "!link https://jane:hunter2hunter@example.com/me",
            venue: .privately, loggedIn: true,
            reply: .exact([
                "That link has a user name or password in it, which everyone would see; send it without the part before @."
            ]), forbidden: ["hunter2hunter"]),
        // SQL and shell metacharacters.
        .init(
            name: "where SQL", input: "!where Robert'); DROP TABLE accounts;--", venue: .channel,
            loggedIn: false,
            reply: .exact(["Nobody called \"Robert'); DROP TABLE accounts;--\" is on the map \(nicknameHint)"]
            )),
        .init(
            name: "login SQL", input: "!login ' OR 1=1 -- x", venue: .privately, loggedIn: false,
            reply: .exact(["Wrong email or password."])),
        .init(
            name: "post SQL", input: "!post '; DELETE FROM locations;-- | https://x.example", venue: .privately,
            loggedIn: true,
            reply: .exact([
                "No place called \"'; DELETE FROM locations;--\" was found; try \"City, Country\", e.g. !post Lyon, France"
            ])),
        .init(
            name: "near shell", input: "!near $(rm -rf /); `id` && cat /etc/passwd", venue: .privately,
            loggedIn: false,
            reply: .exact([
                "No place called \"$(rm -rf /); `id` && cat /etc/passwd\" was found; try \"City, Country\", e.g. !near Lyon, France"
            ])),
        .init(
            name: "map shell", input: "!map ;ls -la $(whoami)", venue: .channel, loggedIn: false,
            reply: .exact([
                "The class map around ;ls -la $(whoami): https://map.example/class?focus=;ls%20-la%20$(whoami)"
            ])),
        .init(
            name: "list SQL", input: "!list 1; DROP TABLE", venue: .channel, loggedIn: false,
            reply: .exact(["The page is a number: !list 2"])),
        .init(
            name: "list overflow", input: "!list 99999999999999999999999999", venue: .privately,
            loggedIn: false,
            reply: .exact(["The page is a number: !list 2"])),
        // Names that look like IRC commands.
        .init(
            name: "where QUIT", input: "!where QUIT :bye", venue: .channel, loggedIn: false,
            reply: .exact(["Nobody called \"QUIT :bye\" is on the map \(nicknameHint)"])),
        .init(
            name: "near PRIVMSG", input: "!near PRIVMSG", venue: .privately, loggedIn: false,
            reply: .exact(["No place called \"PRIVMSG\" was found; try \"City, Country\", e.g. !near Lyon, France"])),
        .init(
            name: "command word PRIVMSG", input: "!PRIVMSG #class :hi", venue: .privately, loggedIn: false,
            reply: .exact(["I don't know the command \"privmsg\". Try !help."])),
        // Unknown commands.
        .init(
            name: "unknown in channel", input: "!frobnicate now", venue: .channel, loggedIn: false,
            reply: .silence),
        .init(
            name: "unknown addressed in channel", input: "MapBot, frobnicate", venue: .channel,
            loggedIn: false,
            reply: .exact(["I don't know the command \"frobnicate\". Try !help."])),
        .init(
            name: "unknown in private", input: "!frobnicate now", venue: .privately, loggedIn: true,
            reply: .exact(["I don't know the command \"frobnicate\". Try !help."])),
        .init(
            name: "double prefix", input: "!!where Tom", venue: .privately, loggedIn: false,
            reply: .exact(["I don't know the command \"!where\". Try !help."])),
        .init(
            name: "chatter in private", input: "hello there", venue: .privately, loggedIn: false,
            reply: .exact(["Hi! I am a class map bot. Try !help for what I can do."])),
        // Commands in the wrong place, or without a login.
        .init(
            name: "post in a channel", input: "!post Seattle", venue: .channel, loggedIn: true,
            reply: .exact(["!post works only in a private message: /msg MapBot !post …"])),
        .init(
            name: "link in a channel", input: "!link https://example.com", venue: .channel, loggedIn: true,
            reply: .exact(["!link works only in a private message: /msg MapBot !link …"])),
        .init(
            name: "privacy 2 KB", input: "!privacy " + long, venue: .privately, loggedIn: true,
            reply: .exact(["The levels are city, region, country or exact: !privacy region, for example."])),
        .init(
            name: "privacy with colour and a line break", input: "!privacy \u{03}4city\r\nexact",
            venue: .privately, loggedIn: true,
            reply: .exact(["The levels are city, region, country or exact: !privacy region, for example."])),
        .init(
            name: "privacy in a channel", input: "!privacy exact", venue: .channel, loggedIn: true,
            reply: .prefix("!privacy works only in a private message")),
        .init(
            name: "unpost in a channel", input: "!unpost confirm", venue: .channel, loggedIn: true,
            reply: .prefix("!unpost works only in a private message")),
        .init(
            name: "unpost with junk", input: "!unpost yes; DROP TABLE student_locations", venue: .privately,
            loggedIn: true, reply: .exact(["Usage: !unpost, then !unpost confirm to take your pin off the map."])),
        .init(
            name: "forget in a channel", input: "!forget confirm", venue: .channel, loggedIn: true,
            reply: .prefix("!forget works only in a private message")),
        .init(
            name: "forget with junk", input: "!forget me; DROP TABLE accounts", venue: .privately, loggedIn: true,
            reply: .exact(["Usage: !forget to see what would be erased, then !forget confirm to erase it."])),
        .init(
            name: "forget confirm never asked", input: "!forget confirm", venue: .privately, loggedIn: true,
            reply: .exact([
                "Nothing was erased: say !forget first to see what would go, then !forget confirm within 5 minutes."
            ])),
        .init(
            name: "forget logged out", input: "!forget confirm", venue: .privately, loggedIn: false,
            reply: .exact([loginHint])),
        .init(
            name: "mydata in a channel", input: "!mydata", venue: .channel, loggedIn: true,
            reply: .prefix("!mydata works only in a private message")),
        .init(
            name: "mydata logged out, with a 2 KB argument", input: "!mydata " + long, venue: .privately,
            loggedIn: false, reply: .exact([loginHint])),
        .init(
            name: "cancel in a channel", input: "!cancel", venue: .channel, loggedIn: true,
            reply: .exact(["!cancel works only in a private message: /msg MapBot !cancel"])),
        .init(
            name: "login in a channel", input: "!login jane@class.test \(ClassFixture.password)",
            venue: .channel,
            loggedIn: false,
            reply: .prefix(
                "never type a password in a channel. Everyone here has seen it: change that password now"),
            forbidden: ["jane@class.test"]),
        .init(
            name: "identify alias in a channel",
            input: "MapBot: identify jane@class.test \(ClassFixture.password)",
            venue: .channel, loggedIn: true, reply: .prefix("never type a password in a channel.")),
        .init(
            name: "register in a channel", input: "!register eve@class.test longpassword1 Eve Evans",
            venue: .channel,
            loggedIn: false, reply: .prefix("never type a password in a channel."),
            forbidden: ["longpassword1"]),
        .init(
            name: "post without login", input: "!post Seattle", venue: .privately, loggedIn: false,
            reply: .exact([loginHint])),
        .init(
            name: "link without login", input: "!link https://example.com", venue: .privately,
            loggedIn: false,
            reply: .exact([loginHint])),
        .init(
            name: "cancel without login", input: "!cancel \u{00}", venue: .privately, loggedIn: false,
            reply: .exact(["There is nothing to cancel."])),
        .init(
            name: "logout with junk, not logged in", input: "!logout \u{202E}everyone", venue: .channel,
            loggedIn: false, reply: .exact(["You were not logged in."])),
        .init(
            name: "unlink with junk, not logged in", input: "!unlink \u{202E}*!*@*", venue: .privately,
            loggedIn: false, reply: .exact([loginHint])),
        .init(
            name: "unlink with a mask, no link", input: "!unlink jane!*@* \u{00}", venue: .privately,
            loggedIn: true, reply: .exact(["Your class account has no services account linked on this network."])),
        .init(
            name: "whoami with NUL", input: "!whoami \u{00}\r\n", venue: .channel, loggedIn: false,
            reply: .exact(["You are not logged in. Log in privately: /msg MapBot !login <email> <password>"])),
        .init(
            name: "signup with path", input: "!signup ../../etc/passwd", venue: .channel, loggedIn: false,
            reply: .exact(["Create your account here: https://signup.example/join"])),
        .init(
            name: "refresh with arguments", input: "!refresh \u{03}4now; rm -rf", venue: .channel,
            loggedIn: false,
            reply: .exact(["Refreshed: 1 post on the map; none is new since the last refresh."])),
        .init(
            name: "login without password", input: "!login \u{202E}jane@class.test", venue: .privately,
            loggedIn: false, reply: .exact(["Usage: !login <email> <password> (in this private chat)."])),
    ]

    /// What must not change: the directory, the sender's session, their open post and unit.
    struct Snapshot: Equatable {
        var accounts: [String]
        var pins: [String]
        var session: String?
        var sessionCount: Int
        var postFlow: String?
        var unit: String
    }

    static func snapshot(_ fixture: ClassFixture, _ jane: UserIdentity) async throws -> Snapshot {
        let accounts = try await fixture.sqlite.listAccounts().map {
            "\($0.email) \($0.firstName) \($0.lastName)"
        }
        let pins = try await fixture.sqlite.recentLocations(limit: 100, skip: 0).map {
            "\($0.objectId) \($0.fullName) \($0.mapString) \($0.mediaURL) \($0.coordinate) \($0.updatedAt)"
        }
        let session = await fixture.bot.sessions.session(for: jane)
        var flow: String?
        if let session,
            case .open(let draft) = try await fixture.plugin(PostPlugin.self).flows.draft(of: session)
        {
            flow = draft.typedPlace
        }
        return Snapshot(
            accounts: accounts.sorted(), pins: pins.sorted(),
            session: session.map { "\($0.profile.accountKey) \($0.session.sessionId)" },
            sessionCount: await fixture.bot.sessions.count, postFlow: flow,
            unit: try await fixture.plugin(NearPlugin.self).units.unit(
                for: jane, caseMapping: .rfc1459, language: .english
            ).rawValue)
    }

    @Test("Hostile input", arguments: rows)
    func hostileInput(_ row: HostileRow) async throws {
        #expect(Self.rows.count >= 40)
        let fixture = try ClassFixture(
            settings: ClassSettings(announceChannels: ["#class"], webMapURL: "https://map.example/class"),
            replacing: { [LoginPlugin(services: .init($0), settings: .init(allowRegistration: true))] })
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        try await fixture.addPin(
            email: "tom@class.test", first: "Tom", last: "Tacoma", place: "Seattle, WA",
            at: try await SharedGazetteer.coordinate(of: "Seattle"))
        let jane = fixture.bot.user("jane")
        if row.loggedIn {
            #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
            #expect(await fixture.dm("!post Paris", as: "jane").first?.hasPrefix("Found Paris") == true)
        }
        let before = try await Self.snapshot(fixture, jane)
        #expect(before.session != nil || !row.loggedIn)

        let origin: Origin = row.venue == .channel ? .channel("#class") : .privateMessage
        let lines = await fixture.bot.say(row.input, from: jane, origin: origin)

        // Where replies go, and that nothing unsafe is in them.
        for line in lines {
            #expect(line.target == (row.venue == .channel ? "#class" : "jane"), "\(line)")
            #expect(Self.isClean(line.text), "unsafe characters in \(line.text.debugDescription)")
            #expect(line.text.utf8.count <= 450, "an over-long reply: \(line.text.utf8.count) bytes")
            for secret in row.forbidden + [ClassFixture.password] {
                #expect(!line.text.contains(secret), "\(line.text) contains \(secret)")
            }
        }
        let texts = lines.map { line in
            row.venue == .channel && line.text.hasPrefix("jane: ")
                ? String(line.text.dropFirst(6)) : line.text
        }
        if row.venue == .channel {
            #expect(lines.allSatisfy { $0.text.hasPrefix("jane: ") }, "channel replies are addressed")
        }
        switch row.reply {
        case .silence:
            #expect(texts.isEmpty, "expected silence, got \(texts)")
        case .exact(let expected):
            #expect(texts == expected)
        case .prefix(let start):
            #expect(texts.first?.hasPrefix(start) == true, "\(texts)")
        case .pattern(let pattern):
            let first = try #require(texts.first, "no reply")
            #expect(
                first.wholeMatch(of: try Regex(pattern)) != nil, "\(first.debugDescription) !~ \(pattern)")
        }

        var after = try await Self.snapshot(fixture, jane)
        if row.allowed.contains(.postFlow) { after.postFlow = before.postFlow }
        #expect(after == before)
        if row.allowed.contains(.postFlow) {
            // The replaced flow holds a clean place.
            let session = try #require(await fixture.bot.sessions.session(for: jane))
            if case .open(let draft) = try await fixture.plugin(PostPlugin.self).flows.draft(of: session) {
                #expect(Self.isClean(draft.typedPlace))
            }
        }
    }

    /// No C0/C1 control characters (so no CR, LF or NUL), no DEL, no text-direction controls.
    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value) || [0x061C, 0x200E, 0x200F].contains($0.value)
        }
    }

    @Test func everyCommandHasAtLeastOneRow() async throws {
        let fixture = try ClassFixture()
        let names = await fixture.bot.router.catalog.entries.map(\.command.name)
        for name in names {
            let covered = Self.rows.contains { row in
                let text = row.input.lowercased()
                return text.contains("!\(name)") || text.contains(": \(name)") || text.contains(", \(name)")
                    || text.contains("!\u{02}\(name)")
            }
            #expect(covered, "no hostile row for !\(name)")
        }
    }
}
