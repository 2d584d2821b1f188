import IRCProtocol
import Localization

/// A bot feature: a set of commands, and optionally a reaction to everything the bot sees.
///
/// A plugin declares its commands; the ``CommandRouter`` enforces each declaration (where a
/// command may run, whether it needs a login, rate limits) so handlers never repeat those checks.
public protocol Plugin: Sendable {
    /// A short lowercase name used in config (`plugins.enabled`) and logs.
    var name: String { get }
    /// The commands this plugin offers.
    var commands: [Command] { get }
}

/// Where a command may be used.
public enum Venue: Sendable, Hashable {
    /// Only in a channel.
    case channel
    /// Only in a private message to the bot.
    case privateMessage
    /// Both.
    case anywhere

    func allows(_ origin: Origin) -> Bool {
        switch (self, origin) {
        case (.anywhere, _), (.channel, .channel), (.privateMessage, .privateMessage): true
        default: false
        }
    }
}

/// How often one user may run a command.
public enum RateLimit: Sendable, Hashable {
    /// At most once per `every` for each user.
    case perUser(every: Duration)
    /// At most once per `every` in each channel (or each private conversation).
    case perVenue(every: Duration)
}

/// One command: its declarations and its handler.
public struct Command: Sendable {
    /// Runs in a task of its own, beside other users' commands (one user's commands run one after
    /// the other); it may compute or wait without holding up the connection.
    public typealias Handler = @Sendable (Invocation) async throws -> Void

    /// The command word, lowercase, without prefix ("near").
    public var name: String
    /// Other words that run the same command ("link" for "post").
    public var aliases: [String]
    /// How to call it and what it does, in the reader's language (``usage(in:prefix:)``,
    /// ``help(in:)``).
    public var text: CommandText
    /// Where it may run.
    public var allowed: Venue
    /// Whether the sender must be logged in (`!login`) to run it.
    public var requiresLogin: Bool
    /// Whether only the bot's owners (``OwnerList``) may run it; others get a plain refusal.
    public var requiresOwner: Bool
    /// An optional rate limit, enforced by the router.
    public var rateLimit: RateLimit?
    /// When true the arguments are secret (a password): never logged, never echoed, and a use in
    /// a channel is answered with a warning instead of being processed.
    public var hasSecretArguments: Bool
    /// Hidden from `!help`'s list (still documented by `!help name`).
    public var isHidden: Bool
    /// What a user may type and what the bot answers: shown by `!help name`, and each one run
    /// by the tests against the demo class.
    public var examples: [CommandExample]
    public var handler: Handler

    /// A command whose usage and help are in the message catalogues (``CommandText/catalogued``).
    public init(
        _ name: String, aliases: [String] = [],
        allowed: Venue = .anywhere, requiresLogin: Bool = false, requiresOwner: Bool = false,
        rateLimit: RateLimit? = nil,
        hasSecretArguments: Bool = false, isHidden: Bool = false, examples: [CommandExample] = [],
        handler: @escaping Handler
    ) {
        self.init(
            name, aliases: aliases, text: .catalogued, allowed: allowed, requiresLogin: requiresLogin,
            requiresOwner: requiresOwner, rateLimit: rateLimit, hasSecretArguments: hasSecretArguments,
            isHidden: isHidden, examples: examples, handler: handler)
    }

    /// A command whose usage and help are written here, in English for every reader
    /// (``CommandText/english(usage:help:)``).
    public init(
        _ name: String, aliases: [String] = [], usage: String, help: String,
        allowed: Venue = .anywhere, requiresLogin: Bool = false, requiresOwner: Bool = false,
        rateLimit: RateLimit? = nil,
        hasSecretArguments: Bool = false, isHidden: Bool = false, examples: [CommandExample] = [],
        handler: @escaping Handler
    ) {
        self.init(
            name, aliases: aliases, text: .english(usage: usage, help: help), allowed: allowed,
            requiresLogin: requiresLogin, requiresOwner: requiresOwner, rateLimit: rateLimit,
            hasSecretArguments: hasSecretArguments, isHidden: isHidden, examples: examples, handler: handler)
    }

    private init(
        _ name: String, aliases: [String], text: CommandText, allowed: Venue, requiresLogin: Bool,
        requiresOwner: Bool, rateLimit: RateLimit?, hasSecretArguments: Bool, isHidden: Bool,
        examples: [CommandExample], handler: @escaping Handler
    ) {
        self.name = name.lowercased()
        self.aliases = aliases.map { $0.lowercased() }
        self.text = text
        self.allowed = allowed
        self.requiresLogin = requiresLogin
        self.requiresOwner = requiresOwner
        self.rateLimit = rateLimit
        self.hasSecretArguments = hasSecretArguments
        self.isHidden = isHidden
        self.examples = examples
        self.handler = handler
    }

    /// How to call it in `phrases`' language, with `!` replaced by the configured prefix:
    /// "!near [place | nick]", "!near [lugar | nick]".
    public func usage(in phrases: Phrasebook, prefix: String) -> String {
        let usage: String
        switch text {
        case .catalogued: usage = phrases("command.\(name).usage")
        case .english(let english, _): usage = english
        }
        return usage.hasPrefix("!") ? prefix + usage.dropFirst() : usage
    }

    /// One sentence of help in `phrases`' language.
    public func help(in phrases: Phrasebook) -> String {
        switch text {
        case .catalogued: phrases("command.\(name).help")
        case .english(_, let help): help
        }
    }

    /// Whether the command takes arguments (its usage names more than the command word).
    public var takesArguments: Bool { usage(in: .english, prefix: "!").contains(" ") }
}

/// Where a command's usage line and help sentence come from.
public enum CommandText: Sendable {
    /// The message catalogues, under `command.<name>.usage` ("!near [place | nick]": the command
    /// and option words as typed, what stands for a value in the reader's language) and
    /// `command.<name>.help`.
    case catalogued
    /// Written in the declaration, in English for every reader (a test's command, an extension
    /// outside the catalogues).
    case english(usage: String, help: String)
}

/// An error a handler throws to send one specific sentence to the user instead of the generic
/// "something went wrong" reply: a sentence already in the user's language, or one said in it when
/// the router answers (``init(wording:)``, for what is thrown far from the command, like a failure
/// of the directory).
public struct UserFacingError: Error, Sendable, Equatable {
    /// The sentence in English (the one a handler wrote, or the wording in English).
    public var message: String
    private let wording: (@Sendable (Phrasebook) -> String)?

    public init(_ message: String) {
        self.message = message
        self.wording = nil
    }

    /// The sentence `wording` writes in the reader's language.
    public init(wording: @escaping @Sendable (Phrasebook) -> String) {
        self.message = wording(.english)
        self.wording = wording
    }

    /// The sentence in `phrases`' language.
    public func message(in phrases: Phrasebook) -> String {
        wording?(phrases) ?? message
    }

    public static func == (lhs: UserFacingError, rhs: UserFacingError) -> Bool {
        lhs.message == rhs.message
    }
}
