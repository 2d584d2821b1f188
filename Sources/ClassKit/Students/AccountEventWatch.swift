import BotKit
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import OnTheMapService

/// Brings the bot's memory up to date with the account events of its directory
/// (``AccountEventFeed``): an account erased or unlinked by another process (the operator's
/// `accounts forget` or `accounts unlink`, or another instance on a shared PostgreSQL directory).
///
/// One per bot, shared by every network's ``ClassServices``. It reads the events after the last it
/// saw ``catchUp()``: before each write of state kept about students (``KeptState``), before a
/// logged-in sender's command is admitted (``LoginGate``), and every few seconds as a backstop.
/// For an erasure, every network's sessions of the account end (and their kept copies), and each
/// plugin forgets what it keeps about the student; for an unlink, the sessions bound to that
/// services account on its network end. Nothing is read from or written to the directory's
/// accounts: the erasure there is done.
public final class AccountEventWatch: Sendable {
    private struct State {
        /// The revision of the last event acted on; nil until the start of the feed is read.
        var cursor: Int64?
        /// The catch-up running now, which later callers wait for.
        var running: Task<Void, Never>?
        var timer: Task<Void, Never>?
        /// When the last read of the feed failed (the directory did not answer), until one succeeds.
        var failedAt: ContinuousClock.Instant?
    }

    private let feed: any AccountEventFeed
    private let networks: ClassNetworks
    private let state = NIOLockedValueBox(State())
    /// How often the backstop reads the feed.
    let interval: Duration

    /// Set while events are applied: writes made by the erasure itself do not wait for it.
    @TaskLocal static var applying = false

    init(feed: any AccountEventFeed, networks: ClassNetworks, interval: Duration = .seconds(5)) {
        self.feed = feed
        self.networks = networks
        self.interval = interval
    }

    deinit {
        state.withLockedValue { $0.timer?.cancel() }
    }

    /// Notes where the feed stands now, so that only later events are acted on: run before what
    /// was kept across a restart is read back. Later calls do nothing.
    public func start() async {
        guard state.withLockedValue({ $0.cursor == nil }) else { return }
        guard let latest = try? await feed.latestAccountEventRevision() else { return }
        state.withLockedValue { if $0.cursor == nil { $0.cursor = latest } }
        startTimer()
    }

    /// Reads the events after the last one seen and acts on each; returns when the memory is up to
    /// date (or the directory could not be read: the next call tries again).
    public func catchUp() async {
        guard !Self.applying else { return }
        if state.withLockedValue({ $0.cursor == nil }) { await start() }
        await reading().value
    }

    /// Like ``catchUp()`` for a command or a write of kept state: it waits at most `limit` for the
    /// directory, and not at all while its last read failed less than `quiet` ago, so an outage
    /// holds up no command beyond the directory's own answer (an erasure cannot be committed while
    /// the directory is down either). The read goes on; the backstop tries again.
    public func catchUp(waitingAtMost limit: Duration, quiet: Duration = .seconds(30)) async {
        guard !Self.applying else { return }
        let failedAt = state.withLockedValue { $0.failedAt }
        if let failedAt, failedAt.duration(to: .now) < quiet { return }
        let read = Task { await self.catchUp() }
        let finished = NIOLockedValueBox(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finish: @Sendable () -> Void = {
                let first = finished.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            Task {
                await read.value
                finish()
            }
            Task {
                try? await Task.sleep(for: limit)
                finish()
            }
        }
    }

    /// The read running now, or a new one.
    private func reading() -> Task<Void, Never> {
        state.withLockedValue { state in
            if let running = state.running { return running }
            let task = Task { await self.readAndApply() }
            state.running = task
            return task
        }
    }

    private func readAndApply() async {
        await Self.$applying.withValue(true) {
            while let cursor = state.withLockedValue({ $0.cursor }) {
                let events: [AccountEvent]
                do {
                    events = try await feed.accountEvents(after: cursor, limit: 100)
                } catch {
                    state.withLockedValue { $0.failedAt = .now }
                    break
                }
                state.withLockedValue { $0.failedAt = nil }
                for event in events { await apply(event) }
                state.withLockedValue { $0.cursor = events.last?.revision ?? cursor }
                if events.count < 100 { break }
            }
        }
        state.withLockedValue { $0.running = nil }
    }

    private func startTimer() {
        let interval = self.interval
        state.withLockedValue { state in
            guard state.timer == nil else { return }
            state.timer = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self else { return }
                    await self.catchUp()
                }
            }
        }
    }

    private func apply(_ event: AccountEvent) async {
        let matches: @Sendable (String) -> Bool = { AccountEvent.digest(accountKey: $0) == event.accountDigest }
        switch event.kind {
        case .erased:
            for services in networks.all {
                for accountKey in await services.knownAccountKeys() where matches(accountKey) {
                    await services.forgetErasedStudent(accountKey: accountKey)
                }
            }
        case .unlinked:
            for services in networks.all where services.networkName == event.network {
                await services.endSessions(boundTo: event.foldedAccount) { matches($0.session.accountKey) }
            }
        }
    }
}

extension ClassServices {
    /// The account keys this network's memory holds: its sessions' and those its plugins keep
    /// something about.
    func knownAccountKeys() async -> Set<String> {
        var keys = Set(await sessions.snapshot().map(\.session.accountKey))
        for lister in accountKeyListers() { keys.formUnion(await lister()) }
        return keys
    }

    /// Forgets, in this network's memory only, a student erased elsewhere: their sessions end
    /// (their kept copies too) and each plugin forgets what it keeps about them.
    func forgetErasedStudent(accountKey: String) async {
        let ended = await sessions.unbindAll { $0.session.accountKey == accountKey }
        if !ended.isEmpty { await sessionArchive.save() }
        let caseMapping = await sessions.currentCaseMapping
        let student = StudentReference(
            accountKey: accountKey, sender: nil, caseMapping: caseMapping,
            identities: ended.map { SessionArchive.identity(owner: $0.owner, nick: $0.nick) })
        _ = await eraseKept(about: student)
        for owner in Set(ended.map(\.owner)) { await loggedOut(owner) }
    }

    /// Ends this network's sessions bound to the services account folded as `foldedAccount` whose
    /// login `matches` (``EveryNetwork/endSessions(boundTo:where:)``).
    @discardableResult
    public func endSessions(boundTo foldedAccount: String, where matches: @Sendable (StudentLogin) -> Bool) async
        -> [StudentSession]
    {
        await everyNetworkReach.endSessions(boundTo: foldedAccount, where: matches)
    }

    /// The IRC network these services serve, as links and account events name it.
    public var networkName: String { settings.networkName ?? ClassSettings.defaultNetworkName }
}
