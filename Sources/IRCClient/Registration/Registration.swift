import IRCProtocol

/// Registration on one connection: `PASS`, `CAP LS 302`, `NICK` and `USER`, capability negotiation
/// (``CapabilityNegotiator``), SASL, and the fallback nicks tried until the server's 001.
///
/// A pure state machine kept by ``ConnectionStateMachine`` (what it has to say for the log is a
/// ``LineAction/log(_:_:)`` among its actions): it starts again on every connection
/// (``begin(nick:secure:into:)``), except that a SASL failure is reported once and not retried on
/// later connections, and that a required SASL login that failed stops the client for good
/// (``fatalReason``). The SASL exchange itself is ``SASLAuthentication``.
struct Registration: Sendable {
    let configuration: IRCClientConfiguration
    private(set) var capabilities = CapabilityNegotiator(saslMechanisms: nil)
    private(set) var capEndSent = false
    /// The SASL dialogue while one is under way on this connection.
    private(set) var sasl: SASLAuthentication?
    /// Whether this connection is TLS (PLAIN is chosen automatically, and EXTERNAL used, only then).
    private(set) var secure = true
    /// Gives the client nonce of each SCRAM exchange.
    let makeSCRAMNonce: @Sendable () -> String
    /// SASL failed (or was unavailable) once: it is not tried again, on this connection or the next
    /// (but for a `sasl` offered anew on this one, while the server never refused the credentials).
    private(set) var saslGivenUp = false
    /// The server took part in a SASL exchange and refused it (wrong password, no proof): never
    /// tried again.
    private(set) var credentialsRefused = false
    private(set) var nicks: NickSequence
    /// The services account logged in to with SASL on this connection.
    private(set) var account: String?
    /// Why the client must stop (a required SASL login failed); never cleared.
    private(set) var fatalReason: String?

    init(configuration: IRCClientConfiguration, makeSCRAMNonce: @escaping @Sendable () -> String) {
        self.configuration = configuration
        self.makeSCRAMNonce = makeSCRAMNonce
        nicks = NickSequence(primary: configuration.nick, alternates: configuration.altNicks)
    }

    /// Capabilities enabled on this connection.
    var enabledCapabilities: Set<String> { capabilities.enabled }

    /// The value the server gave an offered capability (`sasl=PLAIN` → `PLAIN`), nil when not offered.
    func offeredValue(of capability: String) -> String? { capabilities.offered[capability] }

    /// A new connection (`secure` when TLS): the registration lines, with `nick` as the first nick.
    mutating func begin(nick: String, secure: Bool) -> [IRCMessage] {
        capEndSent = false
        sasl = nil
        account = nil
        self.secure = secure
        let mechanisms = configuration.sasl.map { saslConfiguration in
            SASLAuthentication.candidates(
                for: saslConfiguration, secure: secure, hasClientCertificate: hasClientCertificate
            ).map(\.rawValue)
        }
        capabilities = CapabilityNegotiator(saslMechanisms: saslGivenUp ? nil : mechanisms)
        nicks = NickSequence(primary: configuration.nick, alternates: configuration.altNicks)
        var lines: [IRCMessage] = []
        if let password = configuration.serverPassword, !password.isEmpty {
            lines.append(IRCMessage(command: "PASS", parameters: [password]))
        }
        lines.append(.cap("LS", "302"))
        lines.append(.nick(nick))
        lines.append(.user(configuration.username, realName: configuration.realname))
        return lines
    }

    /// Handles a message of the registration dialogue: CAP, AUTHENTICATE, the SASL numerics (900,
    /// 902–908) and 421 (for CAP).
    mutating func handle(_ message: IRCMessage, into actions: inout [LineAction]) {
        let parameters = message.parameters
        switch message.command {
        case "CAP":
            // Services that come back after registration offer `sasl` again (CAP NEW): a client
            // that should be logged in and is not logs in then.
            capabilities.saslAfterRegistration =
                capEndSent && configuration.sasl != nil && account == nil && sasl == nil && !credentialsRefused
            let capabilityActions = capabilities.handle(message)
            if capEndSent, capabilityActions.contains(.startSASL) {
                actions.append(.log(.info, "The server offers SASL again: logging in"))
            }
            if let notice = capabilities.takeLimitNotice() {
                actions.append(.log(.warning, "\(configuration.host) \(notice)"))
            }
            if !saslGivenUp, capabilities.saslOffered == false, let reason = saslUnavailable {
                saslFailed(reason, into: &actions)
                if fatalReason != nil { return }
            }
            carryOut(capabilityActions, into: &actions)
        case "AUTHENTICATE":
            guard var exchange = sasl, let chunk = parameters.first else { return }
            let next = exchange.authenticate(chunk)
            sasl = exchange
            follow(next, into: &actions)
        case "900":
            // During SCRAM, a login before the server proved it knows the password is not believed.
            if parameters.count >= 3, sasl?.succeeded() == nil {
                account = parameters[2]
                actions.append(.emit(.loggedIn(account: parameters[2])))
            }
        case "903", "907":
            if let reason = sasl?.succeeded() {
                account = nil
                saslFailed(reason, into: &actions)
                return
            }
            sasl = nil
            endCapabilityNegotiation(into: &actions)
        case "904":
            guard var exchange = sasl else { return }
            let next = exchange.refused(parameters.last ?? "")
            sasl = exchange
            follow(next, into: &actions)
        case "902", "905", "906":
            if sasl != nil { saslFailed("\(message.command) \(parameters.last ?? "")", into: &actions) }
        case "908":
            let list = parameters.count >= 2 ? parameters[1] : ""
            actions.append(.log(.info, "Server SASL mechanisms: \(list)"))
            sasl?.serverListed(list)
        case "421":
            guard parameters.count >= 2, parameters[1].uppercased() == "CAP" else { return }
            actions.append(.log(.info, "The server does not support CAP"))
            capabilities.finish()
            capEndSent = true
            if configuration.sasl != nil, !saslGivenUp {
                saslFailed("the server does not support CAP/SASL", into: &actions)
            }
        default:
            break
        }
    }

    /// The server's 001: false when the client must not go on (a required SASL login did not happen).
    mutating func welcome(into actions: inout [LineAction]) -> Bool {
        if !capEndSent { capabilities.finish() }
        guard fatalReason == nil else { return false }
        if configuration.sasl?.required == true, account == nil {
            saslFailed("registered without SASL (the server did not negotiate it)", into: &actions)
        }
        return fatalReason == nil
    }

    /// A nick refused before 001 (432 erroneous, 433/436/437 in use or unavailable): the next one to
    /// try, already sent.
    mutating func nickRefused(
        _ message: IRCMessage, current: String, into actions: inout [LineAction]
    ) -> String {
        let refused = message.parameters.count >= 2 ? message.parameters[1] : current
        let next = nicks.next(afterErroneous: message.command == "432")
        actions.append(.log(.info, "Nick \(refused) refused (\(message.command)); trying \(next)"))
        actions.append(.write(.nick(next)))
        return next
    }

    private mutating func carryOut(
        _ capabilityActions: [CapabilityNegotiator.Action], into actions: inout [LineAction]
    ) {
        for action in capabilityActions {
            switch action {
            case .send(let message):
                actions.append(.write(message))
            case .startSASL:
                guard let saslConfiguration = configuration.sasl else {
                    endCapabilityNegotiation(into: &actions)
                    continue
                }
                var exchange = SASLAuthentication(
                    configuration: saslConfiguration, secure: secure, hasClientCertificate: hasClientCertificate,
                    offered: capabilities.offered["sasl"], makeSCRAMNonce: makeSCRAMNonce)
                let next = exchange.start()
                sasl = exchange
                follow(next, into: &actions)
            case .end:
                if configuration.sasl != nil, !saslGivenUp, !capabilities.enabled.contains("sasl") {
                    saslFailed(
                        capabilities.saslOffered == true
                            ? "the server refused the sasl capability"
                            : saslUnavailable ?? "the server does not offer SASL",
                        into: &actions
                    )
                    if fatalReason != nil { return }
                }
                endCapabilityNegotiation(into: &actions)
            }
        }
    }

    private mutating func endCapabilityNegotiation(into actions: inout [LineAction]) {
        capabilities.finish()
        guard !capEndSent else { return }
        capEndSent = true
        actions.append(.write(.cap("END")))
    }

    /// Whether a client certificate is presented on this connection (EXTERNAL needs one).
    private var hasClientCertificate: Bool {
        secure && configuration.tls.clientCertificateFile != nil
    }

    /// Why SASL cannot be tried with what the server offers (nil when SASL is not configured).
    private var saslUnavailable: String? {
        guard let saslConfiguration = configuration.sasl else { return nil }
        guard capabilities.offered["sasl"] != nil else { return "the server does not offer SASL" }
        return SASLAuthentication(
            configuration: saslConfiguration, secure: secure, hasClientCertificate: hasClientCertificate,
            offered: capabilities.offered["sasl"], makeSCRAMNonce: makeSCRAMNonce
        ).nothingUsable
    }

    /// Carries out what the SASL dialogue asked for.
    private mutating func follow(_ next: SASLAuthentication.Next, into actions: inout [LineAction]) {
        switch next {
        case .send(let messages):
            if let exchange = sasl, exchange.awaitsFirstChallenge, let mechanism = exchange.current {
                // The AUTHENTICATE lines are redacted in the trace; the mechanism is not a secret.
                actions.append(.log(.info, "Authenticating with SASL \(mechanism.rawValue)"))
            }
            for message in messages { actions.append(.write(message)) }
        case .wait:
            break
        case .abort(let reason):
            actions.append(.write(IRCMessage(command: "AUTHENTICATE", parameters: ["*"])))
            saslFailed(reason, into: &actions)
        case .failed(let reason):
            saslFailed(reason, into: &actions)
        }
    }

    /// Reports a SASL failure once; stops the client if SASL is required, else registers without it.
    private mutating func saslFailed(_ reason: String, into actions: inout [LineAction]) {
        if sasl != nil { credentialsRefused = true }
        sasl = nil
        guard !saslGivenUp else { return }
        saslGivenUp = true
        actions.append(.log(.error, "SASL authentication failed: \(reason)"))
        actions.append(.emit(.saslFailed(reason: reason)))
        if configuration.sasl?.required == true {
            let fatal = "SASL authentication failed and is required: \(reason)"
            fatalReason = fatal
            actions.append(.log(.warning, "Dropping the connection: \(fatal)"))
            actions.append(.write(.quit(configuration.quitMessage)))
            actions.append(.closeConnection(reason: fatal))
        } else if capabilities.pending.isEmpty {
            endCapabilityNegotiation(into: &actions)
        }
    }
}
