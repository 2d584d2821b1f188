import BotKit
import Foundation
import IRCProtocol
import OnTheMapService

/// `!where <name or nick>`: finds classmates by first, last or full name (case- and
/// accent-insensitive) or by the nick of someone logged in.
public struct WherePlugin: Plugin {
    public let name = "where"
    let services: ClassServices
    /// The most lines a private answer lists.
    static let privateLimit = 15

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "where", aliases: ["whereis", "find"], usage: "!where <name | nick>",
                help: "Where a classmate is: name, place, link and how long ago they posted.",
                rateLimit: .perUser(every: .seconds(2))
            ) { call in try await Self.where(call, services) }
        ]
    }

    static func `where`(_ call: Invocation, _ services: ClassServices) async throws {
        let query = call.argument
        guard !query.isEmpty else {
            throw UserFacingError(
                "Whom should I look for? \(call.prefix)where <first, last or full name | nick>")
        }
        let now = services.now()
        var lines: [String] = []
        var shownKeys: Set<String> = []

        // A nick with a session first: their own pin.
        if let owner = await NickLookup.session(ofNick: query, call: call) {
            let nick = Formatting.clean(query, maxBytes: 40)
            if let pin = try await services.call({
                try await services.directory.location(ofAccount: owner.profile.accountKey)
            }) {
                lines.append("\(nick) is " + Formatting.student(pin, now: now))
                shownKeys.insert(pin.uniqueKey)
            } else {
                lines.append("\(nick) is \(LoginPlugin.displayName(owner.profile)) and has no pin yet.")
            }
        }

        let named = try await services.call { try await services.classMap.recentWithNames() }
        let matches = NameMatcher(query: query).matches(in: named).filter { !shownKeys.contains($0.uniqueKey) }
        lines += matches.map { Formatting.student($0, now: now) }

        guard !lines.isEmpty else {
            let shown = Formatting.clean(query, maxBytes: 60)
            throw UserFacingError(
                "Nobody called \"\(shown)\" is on the map (and no one logged in uses that nick).")
        }
        let cap = call.isPrivate ? privateLimit : call.channelLineCap
        if lines.count <= cap {
            await call.reply(lines: lines)
            return
        }
        let keep = max(1, cap - 1)
        let more = lines.count - keep
        let hint =
            call.isPrivate
            ? "\(more) more; try a fuller name."
            : "\(more) more: /msg \(call.botNick) \(call.prefix)where \(Formatting.clean(query, maxBytes: 60))"
        await call.reply(lines: Array(lines.prefix(keep)) + [hint])
    }
}

/// Finds the logged-in student behind a nick.
enum NickLookup {
    /// The session of whoever uses `text` as a nick now (one word only), if any.
    static func session(ofNick text: String, call: Invocation) async -> StudentSession? {
        let nick = text.trimmingCharacters(in: .whitespaces)
        guard !nick.isEmpty, !nick.contains(where: \.isWhitespace), nick.utf8.count <= 64 else { return nil }
        let account = await call.identity(ofNick: nick)?.account
        return await call.sessions.session(ofNick: nick, account: account)
    }
}

/// Matches a query against students' names: first, last or full name, ignoring case and accents.
/// When nothing matches exactly, names that start with the query (3 letters or more) count.
struct NameMatcher {
    /// A pin's names folded for matching (computed once per class-map download, see ``ClassMap``).
    struct FoldedName: Sendable {
        var first: String
        var last: String
        var full: String

        init(_ pin: StudentLocation) {
            first = NameMatcher.fold(pin.firstName)
            last = NameMatcher.fold(pin.lastName)
            full = NameMatcher.fold("\(pin.firstName) \(pin.lastName)")
        }
    }

    let folded: String

    init(query: String) {
        folded = Self.fold(query)
    }

    /// Case, accents and width removed, words separated by one space (dots count as spaces).
    static func fold(_ text: String) -> String {
        let clean = TextSanitizer.untrusted(text)
        // Plain ASCII needs no Unicode folding (most names); the result is the same either way.
        let lowered =
            clean.utf8.allSatisfy({ $0 < 0x80 })
            ? clean.lowercased()
            : clean.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return lowered.split(whereSeparator: { $0.isWhitespace || $0 == "." }).joined(separator: " ")
    }

    func matches(in named: [(pin: StudentLocation, name: FoldedName)]) -> [StudentLocation] {
        guard !folded.isEmpty else { return [] }
        let exact = named.filter { folded == $0.name.first || folded == $0.name.last || folded == $0.name.full }
        if !exact.isEmpty || folded.count < 3 { return exact.map(\.pin) }
        return named.filter { $0.name.full.hasPrefix(folded) || $0.name.last.hasPrefix(folded) }.map(\.pin)
    }
}
