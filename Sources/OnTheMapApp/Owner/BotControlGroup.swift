import Foundation
import NIOConcurrencyHelpers

/// The owner controls of every network the bot serves (one for a bot configured with `irc:`), in
/// the config's order: what a reload, `!status` and `!quit all` act on together.
public final class BotControlGroup: Sendable {
    private struct State {
        var controls: [BotControl] = []
        var reloading = false
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Every network's control, in the config's order.
    public var controls: [BotControl] { state.withLockedValue { $0.controls } }

    func add(_ control: BotControl) {
        state.withLockedValue { $0.controls.append(control) }
    }

    /// Whether the caller may reload now (no other reload is under way); then ``endReload()``.
    func beginReload() -> Bool {
        state.withLockedValue { s in
            if s.reloading { return false }
            s.reloading = true
            return true
        }
    }

    func endReload() {
        state.withLockedValue { $0.reloading = false }
    }

    /// Stops every network (QUIT with `message`, or the configured quit message).
    func quitAll(message: String?) async {
        for control in controls {
            guard let client = control.client else { continue }
            await client.shutdown(quitMessage: message)
        }
    }
}
