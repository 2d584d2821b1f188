import IRCProtocol

/// One connection's SASL dialogue: which mechanisms to try (in order of preference, only those the
/// server offers), the exchange of the current one (PLAIN, EXTERNAL, SCRAM-SHA-256/512), and the fall
/// back to the next one after a 904.
///
/// A pure state machine kept by ``Registration``. A server that misbehaves (a malformed message, a
/// SCRAM nonce that does not extend ours, an unacceptable iteration count, a wrong server signature,
/// an `e=` error, a success before it proved it knows the password) ends SASL for good with
/// ``Next/abort(_:)``: no other mechanism is tried on a server that cannot be trusted with one.
struct SASLAuthentication: Sendable {
    typealias Mechanism = IRCClientConfiguration.SASL.Mechanism

    /// What ``Registration`` must do next.
    enum Next: Sendable, Equatable {
        /// Send these lines and wait.
        case send([IRCMessage])
        /// Wait for more.
        case wait
        /// Stop SASL (send `AUTHENTICATE *`): the server cannot be trusted; `reason` says why.
        case abort(String)
        /// Nothing (more) to try; `reason` says why.
        case failed(String)
    }

    private enum Step: Sendable, Equatable {
        case mechanismSent, payloadSent, scramFirstSent, scramFinalSent, verified
    }

    let configuration: IRCClientConfiguration.SASL
    /// The mechanisms this client may use on this connection, in order of preference.
    let candidates: [Mechanism]
    /// The mechanisms the server offers (its `sasl=` value, or its 908), upper-cased; nil while unknown.
    private(set) var serverMechanisms: Set<String>?
    /// The mechanism being tried.
    private(set) var current: Mechanism?
    /// The mechanisms tried so far on this connection, in order.
    private(set) var tried: [Mechanism] = []
    private var step = Step.mechanismSent
    /// Whether the mechanism was just named to the server, which has not answered yet.
    var awaitsFirstChallenge: Bool { current != nil && step == .mechanismSent }
    private var scram: SCRAMClient?
    private var assembler = SASLChunkAssembler()
    /// Gives the client nonce of a SCRAM exchange.
    private let makeSCRAMNonce: @Sendable () -> String

    /// `offered` is the server's `sasl` capability value (empty: the server did not list mechanisms).
    init(
        configuration: IRCClientConfiguration.SASL, secure: Bool, hasClientCertificate: Bool, offered: String?,
        makeSCRAMNonce: @escaping @Sendable () -> String
    ) {
        self.configuration = configuration
        self.makeSCRAMNonce = makeSCRAMNonce
        candidates = Self.candidates(for: configuration, secure: secure, hasClientCertificate: hasClientCertificate)
        serverMechanisms = Self.mechanismSet(offered ?? "")
    }

    /// The mechanisms this client may try: EXTERNAL only with a client certificate on a TLS
    /// connection, password mechanisms only with a password, and, when automatic, PLAIN only over TLS.
    static func candidates(
        for sasl: IRCClientConfiguration.SASL, secure: Bool, hasClientCertificate: Bool
    ) -> [Mechanism] {
        let wanted: [Mechanism]
        switch sasl.mechanisms {
        case .automatic:
            wanted = [.external, .scramSHA512, .scramSHA256] + (secure ? [.plain] : [])
        case .inOrder(let list):
            wanted = list
        }
        var result: [Mechanism] = []
        for mechanism in wanted where !result.contains(mechanism) {
            if mechanism == .external, !hasClientCertificate { continue }
            if mechanism.usesPassword, sasl.password.isEmpty { continue }
            result.append(mechanism)
        }
        return result
    }

    /// The mechanisms of a `sasl=` value or a 908 (`PLAIN,EXTERNAL`); nil when the list is empty.
    static func mechanismSet(_ list: String) -> Set<String>? {
        let names = list.split(separator: ",").map { $0.uppercased() }
        return names.isEmpty ? nil : Set(names)
    }

    /// The candidates not yet tried that the server offers (all of them while its list is unknown).
    var usable: [Mechanism] {
        candidates.filter { !tried.contains($0) && (serverMechanisms?.contains($0.rawValue) ?? true) }
    }

    /// Starts with the first usable mechanism.
    mutating func start() -> Next {
        guard let mechanism = usable.first else { return .failed(nothingUsable) }
        current = mechanism
        step = .mechanismSent
        scram = nil
        assembler = SASLChunkAssembler()
        return .send([IRCMessage(command: "AUTHENTICATE", parameters: [mechanism.rawValue])])
    }

    /// The server's 908: the mechanisms it offers.
    mutating func serverListed(_ list: String) {
        if let names = Self.mechanismSet(list) { serverMechanisms = names }
    }

    /// The server's 904 for the current mechanism: the next usable one, or the failure.
    mutating func refused(_ text: String) -> Next {
        if let current { tried.append(current) }
        current = nil
        if usable.isEmpty {
            let names = tried.map(\.rawValue).joined(separator: ", ")
            return .failed(tried.count > 1 ? "904 \(text) (tried \(names))" : "904 \(text)")
        }
        return start()
    }

    /// The server's 903: nil when that is believable, else why not (SCRAM not verified).
    func succeeded() -> String? {
        guard let current, current == .scramSHA256 || current == .scramSHA512, step != .verified else { return nil }
        return "the server reported \(current.rawValue) success without proving it knows the password"
    }

    /// One `AUTHENTICATE` line from the server.
    mutating func authenticate(_ chunk: String) -> Next {
        guard let current else { return .wait }
        switch assembler.add(chunk) {
        case .needMore:
            return .wait
        case .malformed:
            return .abort("a malformed AUTHENTICATE payload from the server")
        case .complete(let payload):
            return answer(payload, mechanism: current)
        }
    }

    private mutating func answer(_ payload: [UInt8], mechanism: Mechanism) -> Next {
        switch (step, mechanism) {
        case (.mechanismSent, _):
            guard payload.isEmpty else {
                return .abort("the server sent a challenge where \(mechanism.rawValue) has none")
            }
            return firstPayload(for: mechanism)
        case (.scramFirstSent, _):
            do {
                guard var client = scram else { return .abort("SCRAM state lost") }
                let final = try client.clientFinal(answering: payload)
                scram = client
                step = .scramFinalSent
                return .send(SASLPayload.authenticateMessages(for: final))
            } catch {
                return .abort(error.description)
            }
        case (.scramFinalSent, _):
            do {
                try scram?.verify(serverFinal: payload)
                step = .verified
                return .send(SASLPayload.authenticateMessages(for: []))
            } catch {
                return .abort(error.description)
            }
        default:
            return .abort("an unexpected AUTHENTICATE from the server during \(mechanism.rawValue)")
        }
    }

    private mutating func firstPayload(for mechanism: Mechanism) -> Next {
        let payload: [UInt8]
        switch mechanism {
        case .plain:
            payload = SASLPayload.plain(username: configuration.username, password: configuration.password)
            step = .payloadSent
        case .external:
            payload = SASLPayload.external()
            step = .payloadSent
        case .scramSHA256, .scramSHA512:
            do {
                let client = try SCRAMClient(
                    hash: mechanism == .scramSHA256 ? .sha256 : .sha512, username: configuration.username,
                    password: configuration.password, nonce: makeSCRAMNonce())
                payload = client.clientFirst()
                scram = client
                step = .scramFirstSent
            } catch {
                return .abort(error.description)
            }
        }
        return .send(SASLPayload.authenticateMessages(for: payload))
    }

    /// Why no mechanism can be tried, in words.
    var nothingUsable: String {
        var reason: String
        if candidates.isEmpty {
            reason = "no SASL mechanism is usable here (configured: \(configuration.mechanismsDescription))"
        } else if let serverMechanisms {
            let theirs = serverMechanisms.sorted().joined(separator: ", ")
            reason = "the server offers SASL \(theirs), not \(candidates.map(\.rawValue).joined(separator: " or "))"
        } else {
            reason = "the server offers no SASL mechanism this bot may use"
        }
        let offered = serverMechanisms ?? []
        if offered.contains("PLAIN"), !candidates.contains(.plain), configuration.mechanisms == .automatic,
            !configuration.password.isEmpty
        {
            reason += " (auto uses PLAIN over TLS only; list PLAIN to allow it in clear)"
        }
        if case .inOrder(let listed) = configuration.mechanisms, Set(listed).count != candidates.count {
            reason += " (EXTERNAL needs a client certificate over TLS, the others a password)"
        }
        return reason
    }
}
