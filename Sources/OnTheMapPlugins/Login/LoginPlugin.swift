import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
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
        LoginPlugin(services: Needs($0), settings: $1)
    }

    /// What `!login`, `!logout`, `!whoami`, `!register`, `!unlink` and the logins through a services
    /// account use: the directory and its accounts, who is logged in and the sessions kept across
    /// restarts, the login throttle and the registration allowance, the state store (whether
    /// sessions are kept), the settings (the network's name), the account events of other
    /// processes, what hears of a logout, and every network's sessions (`!logout` ends them all).
    public struct Needs: ReadsClassSettings, ReadsSessions {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let directory: any StudentDirectory
        public let accounts: (any AccountDirectory)?
        public let stateStore: (any BotStateStore)?
        public let sessionArchive: SessionArchive
        public let loginThrottle: LoginThrottle
        public let registrations: RegistrationAllowance
        public let accountEvents: AccountEventWatch?
        public let keepers: StudentKeepers
        public let networks: EveryNetwork
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, directory: any StudentDirectory,
            accounts: (any AccountDirectory)?, stateStore: (any BotStateStore)?, sessionArchive: SessionArchive,
            loginThrottle: LoginThrottle, registrations: RegistrationAllowance, accountEvents: AccountEventWatch?,
            keepers: StudentKeepers, networks: EveryNetwork
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.directory = directory
            self.accounts = accounts
            self.stateStore = stateStore
            self.sessionArchive = sessionArchive
            self.loginThrottle = loginThrottle
            self.registrations = registrations
            self.accountEvents = accountEvents
            self.keepers = keepers
            self.networks = networks
        }
    }

    public let name = "login"
    let services: Needs
    let settings: Settings
    /// Slows down password guessing: the class's shared throttle (the `loginThrottle` of its `Needs`),
    /// which the HTTP API's logins count against too.
    public var throttle: LoginThrottle { services.loginThrottle }

    public init(services: Needs, settings: Settings = Settings()) {
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
                "login", aliases: ["identify"],
                allowed: .privateMessage, hasSecretArguments: true,
                examples: [
                    CommandExample(
                        "!login alice@demo.local alice-demo-pass", explained: "example.login.account",
                        answer:
                            "Welcome, Alice Martin! You are logged in. Post your pin with !post <place>; !logout ends the session.…"
                    )
                ]
            ) { call in try await Self.logIn(call, services, throttle, passwords: passwords) },
            Command(
                "logout",
                examples: [
                    CommandExample(
                        "!logout", explained: "example.logout.end",
                        answer: "You are logged out, Alice Martin. Your other sessions ended with it: … See you soon!",
                        loggedIn: true)
                ]
            ) { call in
                try await Self.logOut(call, services)
            },
            Command(
                "whoami",
                examples: [
                    CommandExample(
                        "!whoami", explained: "example.whoami.loggedIn",
                        answer: "You are logged in as Alice Martin (until …).", loggedIn: true),
                    CommandExample(
                        "!whoami", explained: "example.whoami.loggedOut",
                        answer: "You are not logged in. Log in privately: /msg … !login <email> <password>"),
                ]
            ) { call in
                await Self.whoAmI(call, services)
            },
            Command(
                "signup",
                examples: [
                    CommandExample(
                        "!signup", explained: "example.signup.page",
                        answer: "This class has no sign-up page; ask your instructor for an account.")
                ]
            ) { call in
                if let url = services.directory.signUpURL, !url.isEmpty {
                    await call.reply(call.phrases("signup.page", ["link": Formatting.clean(url, maxBytes: 300)]))
                } else if services.accounts != nil && allowRegistration && (!passwords || call.vouchedAccount != nil) {
                    await call.reply(
                        call.phrases("signup.throughServices", ["hint": "/msg \(call.botNick) \(call.prefix)register"]))
                } else if services.accounts != nil && allowRegistration {
                    await call.reply(
                        call.phrases("signup.register", ["hint": "/msg \(call.botNick) \(call.prefix)register"]))
                } else {
                    await call.reply(call.phrases("signup.none"))
                }
            },
            Command(
                "unlink",
                requiresLogin: true, isHidden: services.accounts == nil,
                examples: [
                    CommandExample(
                        "!unlink", explained: "example.unlink.account",
                        answer: "Your class account has no services account linked on this network.",
                        loggedIn: true)
                ]
            ) { call in try await Self.unlink(call, services) },
        ]
        commands.append(
            Command(
                "register",
                allowed: .privateMessage, hasSecretArguments: true,
                isHidden: !(settings.allowRegistration && services.accounts != nil),
                examples: [
                    CommandExample(
                        "!register dana@demo.local dana-demo-pass Dana Smith", explained: "example.register.account",
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
        _ call: Invocation, _ services: Needs, _ throttle: LoginThrottle, passwords: Bool = true
    ) async throws {
        guard passwords else {
            // Refused before anything is counted or checked: there is no password to guess.
            throw UserFacingError(passwordsOffSentence(call))
        }
        let words = call.words
        guard words.count >= 2 else {
            throw UserFacingError(call.phrases("login.usage", ["command": call.prefix + "login"]))
        }
        let email = words[0]
        // A password may contain spaces: everything after the email is the password.
        let password = call.argument.drop { !$0.isWhitespace }.drop { $0.isWhitespace }
        let (identity, origin) = throttleKeys(
            call.sender, caseMapping: call.caseMapping, network: services.settings.networkName)
        if let refusal = await throttle.check(identity: identity, origin: origin, email: email) {
            throw UserFacingError(refusalSentence(refusal, justFailed: false, phrases: call.phrases))
        }
        let session: DirectorySession
        do {
            session = try await services.directory.logIn(email: email, password: String(password))
        } catch ServiceError.invalidCredentials {
            if let refusal = await throttle.recordFailure(
                identity: identity, origin: origin, email: email)
            {
                throw UserFacingError(refusalSentence(refusal, justFailed: true, phrases: call.phrases))
            }
            throw UserFacingError(call.phrases("directory.wrongPassword"))
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
            call.phrases("login.welcome", ["name": name, "prefix": call.prefix])
                + (caveat.map { " " + $0 } ?? "") + (linked.map { " " + $0 } ?? ""))
        await keep(check: check, call, services)
    }

    /// Keeps the new session across restarts: learns its connection's sign-on time when the login
    /// did not ask the server (the student's next command waits for this, not the welcome), then
    /// saves the sessions.
    static func keep(check: ConnectionCheck, _ call: Invocation, _ services: Needs) async {
        guard services.accounts != nil, services.stateStore != nil else { return }
        await services.logins.learnSignOnTime(of: call, check: check)
        await services.sessionArchive.save()
    }

    /// Binds the session to the sender's identity (see `LoginGate.bindSession`); a refused binding
    /// logs the new session out again and says why. Returns the caveat the student must read, if any.
    static func bind(
        _ login: StudentLogin, check: ConnectionCheck, _ call: Invocation, _ services: Needs
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
        call.phrases("login.passwordsOff")
    }

    /// What a student is told when the throttle holds a login back.
    static func refusalSentence(_ refusal: LoginThrottle.Refusal, justFailed: Bool, phrases: Phrasebook) -> String {
        let wait: [String: any PhraseValue] = [
            "duration": phrases.duration(seconds: refusal.seconds)
        ]
        switch refusal.reason {
        case .identity:
            return phrases(justFailed ? "login.wrongThenWait" : "login.tooManyWrong", wait)
        case .email:
            return phrases(justFailed ? "login.wrongThenWaitForEmail" : "login.tooManyForEmail", wait)
        case .everyone:
            return phrases("login.tooManyOnTheBot", wait)
        }
    }

    static func logOut(_ call: Invocation, _ services: Needs) async throws {
        guard let bound = await services.logins.endSession(of: call) else {
            await call.reply(call.phrases("logout.notLoggedIn"))
            return
        }
        await services.keepers.loggedOut(bound.owner)
        await services.sessionArchive.save()
        // The local session is gone either way; the backend forgets it on its own when unreachable.
        try? await services.directory.logOut(bound.session)
        // A directory of its own ends the student's other sessions too: the map's, the API's,
        // the other networks' logins and an unused sign-in link.
        var everywhere = ""
        if services.accounts != nil {
            await services.networks.endEverySession(ofAccount: bound.profile.accountKey)
            everywhere = " " + call.phrases("logout.everywhere")
        }
        let name = Formatting.displayName(bound.profile)
        if let through = bound.login.servicesAccount {
            await call.reply(
                call.phrases(
                    "logout.servicesStillLinked",
                    ["name": name, "account": Formatting.clean(through, maxBytes: 64), "prefix": call.prefix])
                    + everywhere)
            return
        }
        await call.reply(call.phrases("logout.done", ["name": name, "everywhere": everywhere]))
    }

    static func whoAmI(_ call: Invocation, _ services: Needs) async {
        guard let bound = services.session(of: call) else {
            await call.reply(call.phrases("whoami.notLoggedIn", ["hint": "/msg \(call.botNick) \(call.prefix)login"]))
            return
        }
        let binding: String
        switch bound.owner {
        case .account(let account):
            binding = call.phrases("whoami.servicesAccount", ["account": Formatting.clean(account, maxBytes: 64)])
        case .connection(let nick, let user, let host):
            binding =
                "\(Formatting.clean(nick, maxBytes: 64))!\(Formatting.clean(user, maxBytes: 32))@\(Formatting.clean(host, maxBytes: 96))"
        }
        if let through = bound.login.servicesAccount {
            await call.reply(
                call.phrases(
                    "whoami.throughServices",
                    ["name": Formatting.displayName(bound.profile), "account": Formatting.clean(through, maxBytes: 64)])
            )
            return
        }
        let until = bound.session.expiresAt.formatted(.iso8601.year().month().day())
        // Where the session is bound (user@host) is only said privately.
        let name = Formatting.displayName(bound.profile)
        await call.reply(
            call.isPrivate
                ? call.phrases("whoami.boundUntil", ["name": name, "binding": binding, "until": until])
                : call.phrases("whoami.until", ["name": name, "until": until]))
    }

    static func register(
        _ call: Invocation, _ services: Needs, allowRegistration: Bool, passwords: Bool = true
    ) async throws {
        guard allowRegistration, let accounts = services.accounts else {
            throw UserFacingError(call.phrases("register.off"))
        }
        if let vouched = call.vouchedAccount {
            try await registerThroughServices(call, services, accounts, servicesAccount: vouched)
            return
        }
        guard passwords else {
            throw UserFacingError(call.phrases("register.passwordsOff", ["command": call.prefix + "register"]))
        }
        let words = call.words
        guard words.count >= 3 else {
            throw UserFacingError(
                call.phrases(
                    "register.usage",
                    ["command": call.prefix + "register", "count": DirectoryInput.minimumPasswordCharacters]))
        }
        let email = words[0]
        let password = words[1]
        let firstName = words[2]
        let lastName = words.dropFirst(3).joined(separator: " ")
        // What the class will read must be plain text: no colours, control or direction marks.
        for (field, value) in [
            ("register.hiddenInEmail", email), ("register.hiddenInName", firstName + " " + lastName),
        ]
        where TextSanitizer.untrusted(value) != value || DirectoryInput.containsHiddenCharacters(value) {
            throw UserFacingError(call.phrases(field))
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
                call.phrases(
                    "register.hostLimit",
                    [
                        "count": RegistrationAllowance.perHost,
                        "duration": call.phrases.duration(seconds: wait, hours: true),
                    ]))
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
            call.phrases(
                "register.done", ["email": shown, "hint": "/msg \(call.botNick) \(call.prefix)login \(shown)"]))
    }
}
