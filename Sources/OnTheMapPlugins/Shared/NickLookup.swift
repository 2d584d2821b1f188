import BotKit
import ClassKit
import ClassKit
import Foundation

/// Finds the logged-in student behind a nick.
enum NickLookup {
    /// The session of whoever uses `text` as a nick now (one word only), if any.
    static func session(ofNick text: String, call: Invocation, services: ClassServices) async -> StudentSession? {
        let nick = text.trimmingCharacters(in: .whitespaces)
        guard !nick.isEmpty, !nick.contains(where: \.isWhitespace), nick.utf8.count <= 64 else { return nil }
        let account = await call.identity(ofNick: nick)?.account
        return await services.sessions.session(ofNick: nick, account: account)
    }
}
