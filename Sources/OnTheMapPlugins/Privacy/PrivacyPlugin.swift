import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import OnTheMapService

/// The students' privacy: `!privacy` (what the class sees of you, and the precision your pin is
/// kept at), `!mydata` (what the bot keeps about you), `!forget` and `!forget confirm` (erase it
/// all, see ``StudentErasure``), and the retention of pins (`privacy.pin_days`: a pin not updated
/// for that many days leaves the map, see ``PinRetention``).
public struct PrivacyPlugin: BackgroundPlugin {
    public static let registration = ClassPluginRegistration("privacy", settings: NoSettings.self) { services, _ in
        PrivacyPlugin(services: services)
    }

    /// How long a `!forget` waits for its `!forget confirm`.
    static let confirmWindow: TimeInterval = 5 * 60

    public let name = "privacy"
    let services: ClassServices
    /// When each account last asked `!forget` (waiting for its confirmation).
    let askedToForget = NIOLockedValueBox<[String: Date]>([:])

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let plugin = self
        let services = self.services
        return [
            Command(
                "privacy", usage: "!privacy [city | region | country | exact | name full|first]",
                help:
                    "Who sees your pin and how precisely: shows it, sets the level your pin is kept at (city by default), or shows your name in full or as first name and last initial.",
                allowed: .privateMessage,
                examples: [
                    CommandExample(
                        "!privacy",
                        answer: [
                            "Pins are kept at city level (the town) unless a student chooses otherwise: never the street typed; a place of fewer than 15,000 people shows as the nearest town of at least that size in its region.",
                            "Who sees them: …",
                            "Change yours: !privacy city|region|country|exact; your name in full or as first name and last initial: !privacy name full|first. What is kept about you: !mydata; erase it all: !forget.",
                        ]),
                    CommandExample(
                        "!privacy region",
                        answer: "OK: your pin …region level (state or province)…",
                        loggedIn: true),
                    CommandExample(
                        "!privacy name first",
                        answer: "OK: others … as …",
                        loggedIn: true),
                    CommandExample(
                        "!privacy street",
                        answer: "The levels are city, region, country or exact: !privacy region, for example.",
                        loggedIn: true),
                ]
            ) { call in try await PrivacyLevels.privacy(call, services) },
            Command(
                "mydata", usage: "!mydata",
                help: "Everything this bot keeps about you, with when it last changed (in a private message only).",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!mydata",
                        answer: [
                            "Account: alice@demo.local, Alice Martin (created …); others see your name in full.", "…",
                        ], loggedIn: true)
                ]
            ) { call in try await plugin.myData(call) },
            Command(
                "forget", usage: "!forget, then !forget confirm",
                help:
                    "Erases everything this bot keeps about you: your pin, your account, sessions and choices (in a private message only).",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!forget",
                        answer: [
                            "This erases for good: your account (alice@demo.local, Alice Martin)…", "…",
                        ], loggedIn: true)
                ]
            ) { call in try await plugin.forget(call) },
        ]
    }

    /// Takes pins past `privacy.pin_days` off the map while the bot runs (once per bot, whichever
    /// network's plugin starts first).
    public func run(context: PluginContext) async {
        guard services.accounts != nil else { return }
        let first = services.retentionStarted.withLockedValue { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        // Pins finer than the class's rules are worth an operator's look at every start.
        if let count = try? await services.finerPinCount(),
            let sentence = count.sentence(default: services.settings.privacy.defaultPrecision)
        {
            context.logger.warning("\(sentence)")
        }
        await PinRetention(services: services).run(logger: context.logger)
    }

    // MARK: - !mydata

    func myData(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let key = bound.profile.accountKey
        let reference = StudentReference(
            accountKey: key, sender: call.sender, caseMapping: call.caseMapping, identities: [call.sender])
        let kept = await services.keptItems(about: reference)
        var lines: [String] = []
        guard let accounts = services.accounts else {
            lines.append(
                "Your account and pin are kept by the class's Udacity service, not by this bot; it holds your "
                    + "session here (until \(Self.day(bound.session.expiresAt))) and your name "
                    + "\(Formatting.displayName(bound.profile)).")
            lines.append(Self.keptLine(kept))
            lines.append("Nothing else is kept. \(call.prefix)forget erases what this bot holds.")
            lines.append(services.settings.privacy.logSentence)
            await call.reply(lines: lines)
            return
        }
        guard let record = try await services.call({ try await accounts.accountRecord(.key(key)) }) else {
            throw UserFacingError("Your account is no longer in the class directory.")
        }
        let account = record.account
        let name = Formatting.clean("\(account.firstName) \(account.lastName)", maxBytes: 100, fallback: "(no name)")
        let form = try await services.call { try await services.privacyGate.nameForm(of: key) }
        let others =
            form == .full
            ? "others see your name in full"
            : "others see it as \(PrivacyNames.shown(bound.profile, form)) (your choice)"
        lines.append(
            "Account: \(Formatting.clean(account.email, maxBytes: 254)), \(name) (created \(Self.time(account.createdAt))); \(others)."
        )
        let precision = try await precisionWords(key)
        if let pin = record.pin {
            let kept = await services.privacyGate.precision(of: pin)
            lines.append(
                "Pin: \(Formatting.place(pin.mapString)) "
                    + "(\(Formatting.coordinate(pin.coordinate))), kept at \(kept.rawValue) level, posted \(Self.time(pin.createdAt)), "
                    + "last changed \(Self.time(pin.updatedAt)); your level: \(precision).")
            if let trip = pin.trip {
                let end = trip.isActive(at: services.now()) ? "until" : "ended"
                lines.append(
                    "Trip: \(Formatting.place(trip.mapString)) (\(Formatting.coordinate(trip.coordinate))), \(end) \(Self.time(trip.endsAt))"
                        + (trip.isActive(at: services.now()) ? "; \(call.prefix)unpost trip ends it." : "."))
            }
        } else {
            lines.append("Pin: none; your level: \(precision).")
        }

        var access = "Sessions: \(record.sessions.count) in the directory"
        if let latest = record.sessions.map(\.createdAt).max() { access += " (latest started \(Self.time(latest)))" }
        let trusted = await services.loginThrottle.trusted(email: account.email)
        access += "; trusted hosts: \(trusted.count)"
        if let last = trusted.map(\.at).max() { access += " (last login \(Self.time(last)))" }
        if !record.servicesLinks.isEmpty {
            let links = record.servicesLinks.map {
                "\(Formatting.clean($0.servicesAccount, maxBytes: 64)) on \(Formatting.clean($0.network, maxBytes: 64))"
            }
            access += "; linked services accounts: " + links.joined(separator: ", ")
        }
        if let store = services.stateStore,
            let expiry = try? await SignInLinks(store: store).unusedLinkExpiry(accountKey: key)
        {
            access += "; an unused sign-in link to the class map (kept as a digest), working until \(Self.time(expiry))"
        }
        lines.append(access + ".")
        lines.append(Self.keptLine(kept))
        lines.append(
            "No password or session id is shown here or kept in clear. "
                + "\(call.prefix)forget erases all of this.")
        lines.append(services.settings.privacy.logSentence)
        await call.reply(lines: lines)
    }

    /// The level the student's pins are kept at, in words ("city (the class default)").
    func precisionWords(_ accountKey: String) async throws -> String {
        let chosen = try await services.call { try await services.privacyChoices.chosen(by: accountKey) }
        let level = services.settings.privacy.allowed(chosen)
        return chosen == nil ? "\(level.rawValue) (the class default)" : "\(level.rawValue) (your choice)"
    }

    static func keptLine(_ items: [KeptItem]) -> String {
        let open = items.first { $0.what == "open post step" }
        let unit = items.first { $0.what == "unit choice" }
        var parts: [String] = []
        parts.append(
            open.map { "Open post step: \($0.detail)" + ($0.changedAt.map { " (since \(time($0)))" } ?? "") }
                ?? "Open post step: none")
        parts.append(
            unit.map { "unit choice: \($0.detail)" + ($0.changedAt.map { " (since \(time($0)))" } ?? "") }
                ?? "unit choice: none (the class default)")
        for item in items where item.what != "open post step" && item.what != "unit choice" {
            parts.append("\(item.what): \(item.detail)" + (item.changedAt.map { " (since \(time($0)))" } ?? ""))
        }
        return parts.joined(separator: "; ") + "."
    }

    // MARK: - !forget

    func forget(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let words = call.words.map { $0.lowercased() }
        guard words.isEmpty || words == ["confirm"] else {
            throw UserFacingError(
                "Usage: \(call.prefix)forget to see what would be erased, then \(call.prefix)forget confirm to erase it."
            )
        }
        let key = bound.profile.accountKey
        let now = services.now()
        guard words == ["confirm"] else {
            try await describeErasure(call, bound: bound)
            askedToForget.withLockedValue { asked in
                asked = asked.filter { now.timeIntervalSince($0.value) <= Self.confirmWindow }
                asked[key] = now
            }
            return
        }
        let asked = askedToForget.withLockedValue { $0.removeValue(forKey: key) }
        guard let asked, now.timeIntervalSince(asked) <= Self.confirmWindow, now >= asked else {
            throw UserFacingError(
                "Nothing was erased: say \(call.prefix)forget first to see what would go, "
                    + "then \(call.prefix)forget confirm within 5 minutes.")
        }
        guard let erasure = StudentErasure(services: services) else {
            try await forgetOnRemoteService(call, bound: bound)
            return
        }
        let report = try await services.call {
            try await erasure.erase(
                accountKey: key, requester: call.sender, caseMapping: call.caseMapping, book: services.sessions)
        }
        guard let report else {
            await services.sessions.unbind(call.sender)
            throw UserFacingError("Your account is no longer in the class directory; nothing was left to erase.")
        }
        await call.reply(lines: [Self.erasedSentence(report), services.settings.privacy.logSentence])
    }

    /// What `!forget confirm` would erase (the answer to `!forget`).
    func describeErasure(_ call: Invocation, bound: StudentSession) async throws {
        let confirm = "Say \(call.prefix)forget confirm within 5 minutes to erase it; nothing changes until you do."
        guard let accounts = services.accounts else {
            await call.reply(lines: [
                "This erases what this bot holds about you: your session here, your open post step and your "
                    + "unit choice, and logs you out on every network.",
                "Your account and pin are kept by the class's Udacity service itself: this bot cannot erase "
                    + "them; ask there. " + confirm,
            ])
            return
        }
        guard let record = try await services.call({ try await accounts.accountRecord(.key(bound.profile.accountKey)) })
        else { throw UserFacingError("Your account is no longer in the class directory.") }
        let account = record.account
        let name = Formatting.clean("\(account.firstName) \(account.lastName)", maxBytes: 100, fallback: "(no name)")
        let pin = record.pin.map { "your pin (\(Formatting.place($0.mapString)))" } ?? "no pin (you have none)"
        await call.reply(lines: [
            "This erases for good: your account (\(Formatting.clean(account.email, maxBytes: 254)), \(name)), "
                + "\(pin), your \(Self.count(record.sessions.count, "session")) on every network, the hosts "
                + "trusted for your logins, your privacy choices, open post step and unit choice.",
            "You will be logged out and need a new account to come back. " + confirm,
        ])
    }

    /// `!forget confirm` on the Udacity-compatible API: the bot erases what it holds itself.
    func forgetOnRemoteService(_ call: Invocation, bound: StudentSession) async throws {
        let key = bound.profile.accountKey
        var ended = await services.sessions.unbindAll { $0.session.accountKey == key }
        let networks = services.everyNetwork
        for network in networks.dropFirst() {
            ended += await network.sessionArchive.endSessions(ofAccount: key)
        }
        var erased: [String] = []
        let student = StudentReference(
            accountKey: key, sender: call.sender, caseMapping: call.caseMapping, identities: [call.sender])
        for network in networks {
            for item in await network.eraseKept(about: student) where !erased.contains(item) { erased.append(item) }
        }
        for owner in Set(ended.map(\.owner)) { await services.loggedOut(owner) }
        try? await services.directory.logOut(bound.session)
        let extra = erased.isEmpty ? "" : ", " + erased.joined(separator: ", ")
        await call.reply(
            "Erased what this bot held: your session\(extra); you are logged out. "
                + "Your account and pin are kept by the class's Udacity service: to erase them, ask there.")
    }

    /// The answer to a done erasure.
    static func erasedSentence(_ report: StudentErasure.Report) -> String {
        var parts = ["your account (email and name)"]
        if let pin = report.record.pin { parts.append("your pin (\(Formatting.place(pin.mapString)))") }
        parts.append(count(report.record.sessions.count, "directory session"))
        if report.ircSessionsEnded > 0 { parts.append(count(report.ircSessionsEnded, "IRC session")) }
        if report.trustedHosts > 0 { parts.append(count(report.trustedHosts, "trusted host")) }
        if !report.record.servicesLinks.isEmpty {
            parts.append(count(report.record.servicesLinks.count, "services account link"))
        }
        parts += report.keptState
        return "Erased: " + parts.joined(separator: ", ")
            + ". You are logged out and nothing of yours is left in this bot's data. Goodbye!"
    }

    // MARK: - Wording

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// A time as "2026-11-26 17:05 UTC".
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }

    static func day(_ date: Date) -> String { date.formatted(.iso8601.year().month().day()) }
}
