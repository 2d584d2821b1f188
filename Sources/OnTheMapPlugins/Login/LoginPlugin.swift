import BotKit
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapService

/// Accounts and sessions: `!login`, `!logout`, `!whoami`, `!signup`, `!register`, `!unlink`; and the
/// login, with no command, of a student whose services account is linked to their class account
/// (see `ServicesAccountLogin.swift`).
///
/// A session is bound to the IRC identity that logged in (see `SessionBook`), and kept across
/// restarts on directories that keep their own accounts (see ``SessionArchive``). Passwords are
/// secret arguments: the router refuses them in channels and never logs them; this plugin never
/// repeats them.
public struct LoginPlugin: RestoringPlugin {
    /// What `plugins.login:` can set.
    public struct Settings: ClassPluginSettings {
        /// Whether `!register` may create accounts (only on backends that keep accounts).
        public var allowRegistration = false
        /// Whether students may log in with a password; false leaves only services account logins.
        public var passwords = true

        public init() {}

        public init(allowRegistration: Bool = false, passwords: Bool = true) {
            self.allowRegistration = allowRegistration
            self.passwords = passwords
        }

        public mutating func read(_ section: inout SettingsSection) {
            section.bool("allow_registration", into: &allowRegistration)
            section.bool("passwords", into: &passwords)
        }
    }

    public static let registration = ClassPluginRegistration("login", settings: Settings.self) {
        LoginPlugin(services: $0, settings: $1)
    }

    public let name = "login"
    let services: ClassServices
    let settings: Settings
    /// Slows down password guessing: the class's shared throttle (``ClassServices/loginThrottle``),
    /// which the HTTP API's logins count against too.
    public var throttle: LoginThrottle { services.loginThrottle }

    public init(services: ClassServices, settings: Settings = Settings()) {
        self.services = services
        self.settings = settings
    }

    /// Takes back the sessions kept before a restart.
    public func restore(context: PluginContext) async {
        await services.sessionArchive.restore(into: services.sessions, logger: context.logger)
    }

    public var commands: [Command] {
        let services = self.services
        let (throttle, allowRegistration, passwords) = (self.throttle, settings.allowRegistration, settings.passwords)
        var commands = [
            Command(
                "login", aliases: ["identify"], usage: "!login <email> <password>",
                help: "Logs you in to the class directory (in a private message only).",
                allowed: .privateMessage, hasSecretArguments: true,
                examples: [
                    CommandExample(
                        "!login alice@demo.local alice-demo-pass",
                        answer:
                            "Welcome, Alice Martin! You are logged in. Post your pin with !post <place>; !logout ends the session.…"
                    )
                ]
            ) { call in try await Self.logIn(call, services, throttle, passwords: passwords) },
            Command(
                "logout", usage: "!logout", help: "Ends your login.",
                examples: [
                    CommandExample(
                        "!logout",
                        answer: "You are logged out, Alice Martin. Your other sessions ended with it: … See you soon!",
                        loggedIn: true)
                ]
            ) { call in
                try await Self.logOut(call, services)
            },
            Command(
                "whoami", usage: "!whoami", help: "Tells you whether you are logged in, and as whom.",
                examples: [
                    CommandExample("!whoami", answer: "You are logged in as Alice Martin (until …).", loggedIn: true),
                    CommandExample(
                        "!whoami",
                        answer: "You are not logged in. Log in privately: /msg … !login <email> <password>"),
                ]
            ) { call in
                await Self.whoAmI(call, services)
            },
            Command(
                "signup", usage: "!signup", help: "Where to create an account for the class directory.",
                examples: [
                    CommandExample(
                        "!signup", answer: "This class has no sign-up page; ask your instructor for an account.")
                ]
            ) { call in
                if let url = services.directory.signUpURL, !url.isEmpty {
                    await call.reply("Create your account here: \(Formatting.clean(url, maxBytes: 300))")
                } else if services.accounts != nil && allowRegistration && (!passwords || call.vouchedAccount != nil) {
                    await call.reply(
                        "Identified to services, create your account in a private message: /msg \(call.botNick) \(call.prefix)register <email> <first name> [last name] (no password: your services account logs you in)."
                    )
                } else if services.accounts != nil && allowRegistration {
                    await call.reply(
                        "Create your account in a private message: /msg \(call.botNick) \(call.prefix)register <email> <password> <first name> <last name>"
                    )
                } else {
                    await call.reply("This class has no sign-up page; ask your instructor for an account.")
                }
            },
            Command(
                "unlink", usage: "!unlink",
                help: "Unlinks your services account from your class account, so that it no longer logs you in.",
                requiresLogin: true, isHidden: services.accounts == nil,
                examples: [
                    CommandExample(
                        "!unlink", answer: "Your class account has no services account linked on this network.",
                        loggedIn: true)
                ]
            ) { call in try await Self.unlink(call, services) },
        ]
        commands.append(
            Command(
                "register", usage: "!register <email> <password> <first name> [last name]",
                help:
                    "Creates your account in the class directory, when the class allows it (private message only).",
                allowed: .privateMessage, hasSecretArguments: true,
                isHidden: !(settings.allowRegistration && services.accounts != nil),
                examples: [
                    CommandExample(
                        "!register dana@demo.local dana-demo-pass Dana Smith",
                        answer: "Registration is turned off for this class; ask your instructor for an account.")
                ]
            ) { call in
                try await Self.register(call, services, allowRegistration: allowRegistration, passwords: passwords)
            })
        return commands
    }

    /// What the login throttle counts a failure against: `identity`, the services account, else the
    /// network the sender connects from; and `origin`, always that network, whose failures count
    /// towards the bot-wide cap (see ``UserIdentity/KeyBasis/network``: the nick and user name, which
    /// anyone changes at will, are left out; an IPv6 address stands for its /64).
    /// On a network other than the default one, both keys start with its name: the same account or
    /// cloak on another network may be someone else (and the default network's keys stay those kept
    /// before the bot served several).
    static func throttleKeys(_ sender: UserIdentity, caseMapping: CaseMapping, network: String? = nil) -> (
        identity: String, origin: String
    ) {
        var anonymous = sender
        anonymous.account = nil
        let scope = network.map { $0 == ClassSettings.defaultNetworkName ? "" : "\($0)/" } ?? ""
        return (
            scope + sender.key(by: .network, caseMapping: caseMapping),
            scope + anonymous.key(by: .network, caseMapping: caseMapping)
        )
    }

    static func logIn(
        _ call: Invocation, _ services: ClassServices, _ throttle: LoginThrottle, passwords: Bool = true
    ) async throws {
        guard passwords else {
            // Refused before anything is counted or checked: there is no password to guess.
            throw UserFacingError(passwordsOffSentence(call))
        }
        let words = call.words
        guard words.count >= 2 else {
            throw UserFacingError("Usage: \(call.prefix)login <email> <password> (in this private chat).")
        }
        let email = words[0]
        // A password may contain spaces: everything after the email is the password.
        let password = call.argument.drop { !$0.isWhitespace }.drop { $0.isWhitespace }
        let (identity, origin) = throttleKeys(
            call.sender, caseMapping: call.caseMapping, network: services.settings.networkName)
        if let refusal = await throttle.check(identity: identity, origin: origin, email: email) {
            throw UserFacingError(refusalSentence(refusal, justFailed: false))
        }
        let session: DirectorySession
        do {
            session = try await services.directory.logIn(email: email, password: String(password))
        } catch ServiceError.invalidCredentials {
            if let refusal = await throttle.recordFailure(
                identity: identity, origin: origin, email: email)
            {
                throw UserFacingError(refusalSentence(refusal, justFailed: true))
            }
            throw UserFacingError("Wrong email or password.")
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        await throttle.recordSuccess(identity: identity, email: email)
        // Asked only once the password is right (a wrong guess costs the bot no extra line), and while
        // the profile is fetched: the answer describes the connection that sent this line.
        async let connection = services.logins.checkConnection(of: call)
        let profile: StudentProfile
        do {
            profile = try await services.directory.profile(accountKey: session.accountKey, session: session)
        } catch let error as ServiceError {
            try? await services.directory.logOut(session)
            throw ServiceErrorWording.error(for: error)
        }
        if let previous = await services.sessions.unbind(call.sender) {
            try? await services.directory.logOut(previous.session)
        }
        let check = await connection
        let caveat = try await bind(StudentLogin(session: session, profile: profile), check: check, call, services)
        let name = Formatting.displayName(profile)
        let linked = await linkAfterLogin(call, services, accountKey: session.accountKey)
        await call.reply(
            "Welcome, \(name)! You are logged in. Post your pin with \(call.prefix)post <place>; \(call.prefix)logout ends the session."
                + (caveat.map { " " + $0 } ?? "") + (linked.map { " " + $0 } ?? "")
        )
        await keep(check: check, call, services)
    }

    /// Keeps the new session across restarts: learns its connection's sign-on time when the login
    /// did not ask the server (the student's next command waits for this, not the welcome), then
    /// saves the sessions.
    static func keep(check: ConnectionCheck, _ call: Invocation, _ services: ClassServices) async {
        guard services.accounts != nil, services.stateStore != nil else { return }
        await services.logins.learnSignOnTime(of: call, check: check)
        await services.sessionArchive.save()
    }

    /// Binds the session to the sender's identity (see `LoginGate.bindSession`); a refused binding
    /// logs the new session out again and says why. Returns the caveat the student must read, if any.
    static func bind(
        _ login: StudentLogin, check: ConnectionCheck, _ call: Invocation, _ services: ClassServices
    ) async throws -> String? {
        switch await services.logins.bindSession(login, for: call, check: check) {
        case .bound(_, let caveat):
            return caveat
        case .refused(let reason):
            try? await services.directory.logOut(login.session)
            throw UserFacingError(reason)
        }
    }

    /// Why `!login` with a password is refused when the class has passwords turned off.
    static func passwordsOffSentence(_ call: Invocation) -> String {
        "This class logs you in with your services account, not a password: identify to services "
            + "(/msg NickServ IDENTIFY <account> <password>, or SASL in your IRC client) and I know you "
            + "at your next command, once your instructor has linked that account to the class."
    }

    /// What a student is told when the throttle holds a login back.
    static func refusalSentence(_ refusal: LoginThrottle.Refusal, justFailed: Bool) -> String {
        let wait = ServiceErrorWording.describe(seconds: refusal.seconds)
        switch refusal.reason {
        case .identity:
            return justFailed
                ? "Wrong email or password. Too many failed attempts: please wait \(wait) before trying again."
                : "Too many wrong passwords; please wait \(wait) before trying again."
        case .email:
            return (justFailed ? "Wrong email or password. " : "")
                + "Too many wrong passwords were tried for that email; please wait \(wait) before trying again."
        case .everyone:
            return
                "Too many wrong passwords are being tried on this bot just now; please wait \(wait) before trying again."
        }
    }

    static func logOut(_ call: Invocation, _ services: ClassServices) async throws {
        guard let bound = await services.logins.endSession(of: call) else {
            await call.reply("You were not logged in.")
            return
        }
        await services.loggedOut(bound.owner)
        await services.sessionArchive.save()
        // The local session is gone either way; the backend forgets it on its own when unreachable.
        try? await services.directory.logOut(bound.session)
        // A directory of its own ends the student's other sessions too: the map's, the API's,
        // the other networks' logins and an unused sign-in link.
        var everywhere = ""
        if services.accounts != nil {
            await services.endEverySession(ofAccount: bound.profile.accountKey)
            everywhere =
                " Your other sessions ended with it: the class map in any browser, the API and the bot's other networks; an unused sign-in link no longer works."
        }
        if let through = bound.login.servicesAccount {
            await call.reply(
                "You are logged out, \(Formatting.displayName(bound.profile)); your services account \(Formatting.clean(through, maxBytes: 64)) logs you in again at your next command while you are identified to it. \(call.prefix)unlink removes that link; logging out of services ends it too."
                    + everywhere
            )
            return
        }
        await call.reply("You are logged out, \(Formatting.displayName(bound.profile)).\(everywhere) See you soon!")
    }

    static func whoAmI(_ call: Invocation, _ services: ClassServices) async {
        guard let bound = services.session(of: call) else {
            await call.reply(
                "You are not logged in. Log in privately: /msg \(call.botNick) \(call.prefix)login <email> <password>"
            )
            return
        }
        let binding: String
        switch bound.owner {
        case .account(let account):
            binding = "your services account \(Formatting.clean(account, maxBytes: 64))"
        case .connection(let nick, let user, let host):
            binding =
                "\(Formatting.clean(nick, maxBytes: 64))!\(Formatting.clean(user, maxBytes: 32))@\(Formatting.clean(host, maxBytes: 96))"
        }
        if let through = bound.login.servicesAccount {
            await call.reply(
                "You are logged in as \(Formatting.displayName(bound.profile)), through your services account \(Formatting.clean(through, maxBytes: 64))."
            )
            return
        }
        let until = bound.session.expiresAt.formatted(.iso8601.year().month().day())
        // Where the session is bound (user@host) is only said privately.
        let detail = call.isPrivate ? "bound to \(binding), until \(until)" : "until \(until)"
        await call.reply("You are logged in as \(Formatting.displayName(bound.profile)) (\(detail)).")
    }

    static func register(
        _ call: Invocation, _ services: ClassServices, allowRegistration: Bool, passwords: Bool = true
    ) async throws {
        guard allowRegistration, let accounts = services.accounts else {
            throw UserFacingError(
                "Registration is turned off for this class; ask your instructor for an account.")
        }
        if let vouched = call.vouchedAccount {
            try await registerThroughServices(call, services, accounts, servicesAccount: vouched)
            return
        }
        guard passwords else {
            throw UserFacingError(
                "This class signs you in with your services account: identify to services first (/msg NickServ IDENTIFY <account> <password>, or SASL in your IRC client), then \(call.prefix)register <email> <first name> [last name]."
            )
        }
        let words = call.words
        guard words.count >= 3 else {
            throw UserFacingError(
                "Usage: \(call.prefix)register <email> <password> <first name> [last name] (the password needs at least \(DirectoryInput.minimumPasswordCharacters) characters and no spaces)."
            )
        }
        let email = words[0]
        let password = words[1]
        let firstName = words[2]
        let lastName = words.dropFirst(3).joined(separator: " ")
        // What the class will read must be plain text: no colours, control or direction marks.
        for (field, value) in [("email", email), ("name", firstName + " " + lastName)]
        where TextSanitizer.untrusted(value) != value || DirectoryInput.containsHiddenCharacters(value) {
            throw UserFacingError(
                "Your \(field) has control, colour, text-direction or zero-width characters in it; please type it plainly."
            )
        }
        // The email and password rules are about what was typed: said before anything is counted.
        do {
            _ = try DirectoryInput.normalizedEmail(email)
            try DirectoryInput.validateNewPassword(password)
            _ = try DirectoryInput.validateNames(firstName: firstName, lastName: lastName)
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        let origin = throttleKeys(call.sender, caseMapping: call.caseMapping, network: services.settings.networkName)
            .origin
        if let wait = await services.registrations.take(origin: origin) {
            throw UserFacingError(
                "Your host has tried \(RegistrationAllowance.perHost) registrations today; try again in \(Self.describe(seconds: wait)), or ask your instructor for an account."
            )
        }
        // Whether the email had an account is never said (a guesser would learn who is in the
        // class): the answer is the same either way, and the student logs in with what they chose.
        do {
            _ = try await accounts.addAccount(
                email: email, password: password, firstName: firstName, lastName: lastName)
        } catch ServiceError.rejectedInput(let reason) where reason == DirectoryInput.emailTaken {
            // Nothing changes: the account of that email stays as it is.
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        let shown = Formatting.clean(email, maxBytes: 100)
        await call.reply(
            "Thank you. If \(shown) had no account, it has one now with the password you chose; if it had one, nothing was changed. Log in with /msg \(call.botNick) \(call.prefix)login \(shown) <password>."
        )
    }

    /// "3 hours", "12 minutes": a wait for a sentence.
    static func describe(seconds: Int) -> String {
        if seconds >= 2 * 3600 { return "\(seconds / 3600) hours" }
        if seconds >= 120 { return "\((seconds + 59) / 60) minutes" }
        return "\(seconds) seconds"
    }
}
