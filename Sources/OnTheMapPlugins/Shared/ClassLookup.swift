import BotKit
import ClassKit
import IRCProtocol
import Localization
import OnTheMapService

/// The one rule by which every lookup command (`!where`, `!near`, `!time`, `!overlap`, and the
/// owners' `!pin remove`) reads its argument — a classmate, a nick or a place — and the one place where who may look at whom is
/// applied. A command gets back only what the asker may see, with the ``LookupAudience`` its answer
/// must go through; the commands that look at the whole class (`!awake`, `!list`, `!refresh`) get
/// that audience from ``classAudience(_:_:)``.
///
/// The order, always the same:
/// 1. **Who may look.** The bot's owners, in a command only they may run, may look up anyone.
///    While the class is for the class (`web.visibility: class`), someone not logged in with
///    `!login` may look up no classmate. A command whose answer is about classmates
///    whatever it names is refused at once with `lookup.classOnly`; a command that also answers
///    for a place alone (`!time`, `anyoneMayAskPlaces`) reads the argument as a place only, and
///    refuses the same way unless that place is found exactly (a near spelling may be a
///    classmate's name they may not look up).
/// 2. **Nothing typed:** ``Found/nothing`` (the command says what it does without an argument).
/// 3. **A nick:** the student logged in under that nick now, compared under the network's
///    casemapping (the session book's). The connection and the session book are asked only when
///    the argument could be a nick at all (``NickSyntax/couldBeNick(_:)``): a name with a space, a
///    place with a comma, a word starting with a digit costs no round trip.
/// 4. **Names:** the pins whose first, last or full name the argument is (without case or accents).
/// 5. **A place**, from the gazetteer (``FindsPlaces/resolvePlace(_:)``).
///
/// A command names the kinds it accepts; with ``Matching/first`` the first kind that finds anyone
/// wins, with ``Matching/every`` (`!where`) the nick's student and the namesakes are all given,
/// the nick's first.
struct ClassLookup: Sendable {
    /// What step 1 reads (who may look, where the answer goes): a command that looks at the whole
    /// class has these.
    protocol AudienceNeeds: ReadsClassSettings, ReadsSessions {}

    /// What the whole rule reads: a lookup command's `Needs` has these (and may have more).
    protocol Needs: AudienceNeeds, FindsPlaces {
        /// Service calls, with a failure's sentence.
        var call: ServiceCalls { get }
        /// The directory (a nick's student's pin).
        var directory: any StudentDirectory { get }
        /// The class map (names).
        var classMap: ClassMap { get }
    }

    /// The kinds of argument a command accepts.
    struct Kinds: OptionSet, Sendable {
        let rawValue: Int
        static let nick = Kinds(rawValue: 1)
        static let name = Kinds(rawValue: 2)
        static let place = Kinds(rawValue: 4)
    }

    /// Whether the first kind that finds a classmate wins, or every classmate found is given.
    enum Matching: Sendable {
        case first, every
    }

    /// The student behind a nick.
    struct NickMatch: Sendable {
        /// The nick as typed, cleaned to be shown.
        var nick: String
        /// The student's name as their account gives it.
        var name: String
        /// Their pin, if they have one.
        var pin: StudentLocation?
    }

    /// What the argument named.
    enum Found: Sendable {
        /// No argument.
        case nothing
        /// Classmates: the student logged in under the nick, and the pins of that name.
        case classmates(nick: NickMatch?, named: [StudentLocation])
        /// A place (found exactly, offered or refused), for a command that accepts places.
        case place(PlaceResolution)
        /// No classmate, for a command that accepts no place.
        case nobody
    }

    /// What the argument named.
    let found: Found
    /// Where the answer goes, and what it may hold.
    let audience: LookupAudience

    /// Resolves `argument` (the command's, unless it names a subcommand first) in the order of
    /// ``ClassLookup``, for a command that accepts `kinds`. `anyoneMayAskPlaces`: a place's answer
    /// tells nothing of classmates, so someone who may not look classmates up may still ask one
    /// (step 1).
    static func resolve(
        _ call: Invocation, _ services: some Needs, argument: String? = nil, accepting kinds: Kinds,
        matching: Matching = .first, anyoneMayAskPlaces: Bool = false
    ) async throws -> ClassLookup {
        let audience = LookupAudience(call: call, services: services)
        let mayLookUp = audience.mayLookUpClassmates
        guard mayLookUp || (anyoneMayAskPlaces && kinds.contains(.place)) else {
            throw UserFacingError(audience.signInSentence)
        }
        let argument = argument ?? call.argument
        guard !argument.isEmpty else { return ClassLookup(found: .nothing, audience: audience) }
        guard mayLookUp else {
            // Only a place, and only one found exactly.
            let resolution = try await services.resolvePlace(argument)
            guard case .found = resolution else { throw UserFacingError(audience.signInSentence) }
            return ClassLookup(found: .place(resolution), audience: audience)
        }
        var nickMatch: NickMatch?
        if kinds.contains(.nick), let owner = await session(ofNick: argument, call: call, services: services) {
            let pin = try await services.call {
                try await services.directory.location(ofAccount: owner.profile.accountKey)
            }
            nickMatch = NickMatch(
                nick: Formatting.clean(argument, maxBytes: 40), name: Formatting.displayName(owner.profile), pin: pin)
            if matching == .first {
                return ClassLookup(found: .classmates(nick: nickMatch, named: []), audience: audience)
            }
        }
        if kinds.contains(.name) {
            let shownKey = nickMatch?.pin?.uniqueKey
            let named = try await services.call { try await services.classMap.pins(named: argument) }
                .filter { $0.uniqueKey != shownKey }
            if nickMatch != nil || !named.isEmpty {
                return ClassLookup(found: .classmates(nick: nickMatch, named: named), audience: audience)
            }
        } else if nickMatch != nil {
            return ClassLookup(found: .classmates(nick: nickMatch, named: []), audience: audience)
        }
        guard kinds.contains(.place) else { return ClassLookup(found: .nobody, audience: audience) }
        return ClassLookup(found: .place(try await services.resolvePlace(argument)), audience: audience)
    }

    /// The audience of a command that looks at the whole class (`!awake`, `!list`, `!refresh`):
    /// throws ``LookupAudience/signInSentence`` to someone who may not look classmates up (step 1).
    static func classAudience(_ call: Invocation, _ services: some AudienceNeeds) throws -> LookupAudience {
        let audience = LookupAudience(call: call, services: services)
        guard audience.mayLookUpClassmates else { throw UserFacingError(audience.signInSentence) }
        return audience
    }

    /// The session of whoever uses `text` as a nick now, if any (step 3): nil at once, without
    /// asking the connection or the session book, when `text` cannot be a nick.
    private static func session(ofNick text: String, call: Invocation, services: some Needs) async -> StudentSession? {
        guard NickSyntax.couldBeNick(text) else { return nil }
        let account = await call.identity(ofNick: text)?.account
        return await services.sessions.session(ofNick: text, account: account)
    }
}

/// Where the answer to a lookup goes and what it may hold: who hears the answer to a question
/// asked in a channel (`privacy.channel_answers`, and `privacy.open_channel` for a channel anyone
/// may join). Only ``ClassLookup`` makes one, after its visibility check.
struct LookupAudience: Sendable {
    let call: Invocation
    let services: any ClassLookup.AudienceNeeds

    fileprivate init(call: Invocation, services: any ClassLookup.AudienceNeeds) {
        self.call = call
        self.services = services
    }

    /// Whether the asker may look classmates up: an owner in a command only owners may run (the
    /// router admitted no one else); anyone unless the class is for the class
    /// (`web.visibility: class`), then only someone logged in with `!login`.
    fileprivate var mayLookUpClassmates: Bool {
        if call.catalog.lookup(call.commandName)?.command.requiresOwner == true { return true }
        return !services.settings.privacy.classOnly || services.session(of: call) != nil
    }

    /// The sentence a stranger gets when the class is for the class.
    fileprivate var signInSentence: String {
        call.phrases("lookup.classOnly", ["hint": "/msg \(call.botNick) \(call.prefix)login"])
    }

    /// Whether the answer goes to the asker alone although it was asked in a channel
    /// (`privacy.channel_answers: private`).
    var answersPrivately: Bool {
        !call.isPrivate && services.settings.privacy.channelAnswers == .private
    }

    /// Whether the channel the command was said in hears students' names only: anyone may join it
    /// (see ``BotTransport/isOpenChannel(_:)``) while the class is for the class and
    /// `privacy.open_channel` is `names`.
    func withholdsPlaces() async -> Bool {
        guard case .channel(let channel) = call.origin else { return false }
        return await NamesOnlyWording.withholdsPlaces(in: channel, services, isOpen: call.isOpenChannel)
    }

    /// Whether the full answer goes to the asker alone (asked privately, answered privately by
    /// setting, or asked in a channel that hears names only): it may then be longer than a
    /// channel's few lines.
    func answersAskerAlone() async -> Bool {
        if call.isPrivate || answersPrivately { return true }
        return await withholdsPlaces()
    }

    /// Answers `lines`, which say where the students `names` are (places, links, local times):
    /// like ``answer(lines:)``, except in a channel that hears names only (``withholdsPlaces()``),
    /// where one line names them and the asker gets `lines` by notice.
    func answer(lines: [String], naming names: [String]) async {
        guard !answersPrivately, await withholdsPlaces() else {
            await answer(lines: lines)
            return
        }
        await call.reply(Self.namesOnly(names, phrases: call.phrases))
        for line in lines { await call.notice(line) }
    }

    /// Answers `lines`: where the command was said, or by notice to the asker when
    /// ``answersPrivately``.
    func answer(lines: [String]) async {
        if answersPrivately {
            for line in lines { await call.notice(line) }
        } else {
            await call.reply(lines: lines)
        }
    }

    /// The channel's line when it hears names only: "Ada Lovelace, Alan Turing — I sent you where
    /// by notice (this channel is open to anyone, so places stay out of it)."
    static func namesOnly(_ names: [String], phrases: Phrasebook) -> String {
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        let shown = unique.prefix(5).joined(separator: ", ") + (unique.count > 5 ? ", …" : "")
        return unique.isEmpty
            ? phrases("lookup.sentByNotice") : phrases("lookup.namesSentByNotice", ["names": shown])
    }
}
