import BotKit
import IRCProtocol
import OnTheMapService

/// Turns every `ServiceError` into one sentence a student can act on.
public enum ServiceErrorWording {
    /// The sentence for `error`.
    public static func sentence(for error: ServiceError) -> String {
        switch error {
        case .networkUnreachable:
            return "I could not reach the class directory just now; please try again in a minute."
        case .invalidCredentials:
            return "Wrong email or password."
        case .sessionExpired:
            return "Your login has expired; please log in again in a private message with !login."
        case .notFound(let what):
            var reason = detail(what, fallback: "the directory has no such entry")
            if reason.hasSuffix(".") { reason.removeLast() }
            return "Not found: \(reason)."
        case .rejectedInput(let reason):
            return "The class directory refused that: \(detail(reason, fallback: "the input is not valid"))"
        case .unavailable:
            return "The class directory is busy; nothing was changed. Please try again in a minute."
        case .backendFailure(let status, _):
            let code = status.map { " (error \($0))" } ?? ""
            return "The class directory had a problem\(code); nothing was changed. Please try again later."
        case .malformedResponse:
            return "The class directory answered something I could not understand; please try again later."
        case .throttled(let seconds):
            return "Too many attempts; please wait \(describe(seconds: seconds)) and try again."
        case .unsupported(let what):
            return "This class directory cannot do that: \(detail(what, fallback: "not supported"))"
        }
    }

    /// The sentence for a failure of the place finder (geocoder), which is not the class directory.
    public static func geocoderSentence(for error: ServiceError) -> String {
        switch error {
        case .networkUnreachable:
            return "I could not reach the place finder just now; please try again in a minute."
        case .throttled(let seconds):
            return "The place finder is busy; please wait \(describe(seconds: seconds)) and try again."
        case .rejectedInput(let reason):
            return "The place finder refused that: \(detail(reason, fallback: "the place is not valid"))"
        default:
            return "The place finder had a problem just now; nothing was changed. Please try again later."
        }
    }

    /// A `UserFacingError` carrying the sentence for `error`.
    public static func error(for error: ServiceError) -> UserFacingError {
        UserFacingError(sentence(for: error))
    }

    /// "1 second", "40 seconds", "15 minutes".
    public static func describe(seconds: Int) -> String {
        let seconds = max(1, seconds)
        if seconds >= 120 { return "\((seconds + 59) / 60) minutes" }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }

    private static func detail(_ text: String, fallback: String) -> String {
        let cleaned = TextSanitizer.untrusted(text, maxBytes: 200).trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty else { return fallback }
        return cleaned
    }
}
