import BotKit
import IRCProtocol
import Localization
import OnTheMapService

/// Turns every `ServiceError` into one sentence a student can act on.
public enum ServiceErrorWording {
    /// The sentence for a failure of the class directory, in `phrases`' language.
    public static func sentence(for error: ServiceError, in phrases: Phrasebook) -> String {
        switch error {
        case .networkUnreachable:
            return phrases("directory.unreachable")
        case .invalidCredentials:
            return phrases("directory.wrongPassword")
        case .sessionExpired:
            return phrases("directory.sessionExpired", ["login": "!login"])
        case .notFound(let what):
            var reason = detail(what) ?? phrases("directory.noSuchEntry")
            if reason.hasSuffix(".") { reason.removeLast() }
            return phrases("directory.notFound", ["reason": reason])
        case .rejectedInput(let reason):
            let said = inputSentence(reason, in: phrases) ?? detail(reason) ?? phrases("directory.notValid")
            return phrases("directory.refused", ["reason": said])
        case .unavailable:
            return phrases("directory.busy")
        case .backendFailure(let status, _):
            return status.map { phrases("directory.failedWithCode", ["code": "\($0)"]) } ?? phrases("directory.failed")
        case .malformedResponse:
            return phrases("directory.malformed")
        case .throttled(let seconds):
            return phrases("directory.throttled", ["duration": phrases.duration(seconds: seconds)])
        case .unsupported(let what):
            return phrases("directory.unsupported", ["reason": detail(what) ?? phrases("directory.notSupported")])
        }
    }

    /// An account field's refusal (``DirectoryInput``'s reasons) in `phrases`' language; nil for
    /// any other reason.
    static func inputSentence(_ reason: String, in phrases: Phrasebook) -> String? {
        switch reason {
        case DirectoryInput.emailEmpty: phrases("input.emailEmpty")
        case DirectoryInput.emailTooLong: phrases("input.emailTooLong")
        case DirectoryInput.notAnEmail: phrases("input.notAnEmail")
        case DirectoryInput.passwordEmpty: phrases("input.passwordEmpty")
        case DirectoryInput.passwordTooShort:
            phrases("input.passwordTooShort", ["count": DirectoryInput.minimumPasswordCharacters])
        case DirectoryInput.passwordTooLong: phrases("input.passwordTooLong")
        case DirectoryInput.passwordControlCharacters: phrases("input.passwordControlCharacters")
        case DirectoryInput.nameEmpty: phrases("input.nameEmpty")
        case DirectoryInput.nameTooLong: phrases("input.nameTooLong")
        case DirectoryInput.nameHiddenCharacters: phrases("input.nameHiddenCharacters")
        default: nil
        }
    }

    /// The sentence for a failure of the geocoder (the place finder), in `phrases`' language.
    public static func geocoderSentence(for error: ServiceError, in phrases: Phrasebook) -> String {
        switch error {
        case .networkUnreachable:
            return phrases("geocoder.unreachable")
        case .throttled(let seconds):
            return phrases("geocoder.throttled", ["duration": phrases.duration(seconds: seconds)])
        case .rejectedInput(let reason):
            return phrases("geocoder.refused", ["reason": detail(reason) ?? phrases("geocoder.notValid")])
        default:
            return phrases("geocoder.failed")
        }
    }

    /// A `UserFacingError` carrying the sentence for `error`, said in the asker's language.
    public static func error(for error: ServiceError) -> UserFacingError {
        UserFacingError(wording: { sentence(for: error, in: $0) })
    }

    /// A `UserFacingError` carrying the geocoder's sentence for `error`, in the asker's language.
    public static func geocoderError(for error: ServiceError) -> UserFacingError {
        UserFacingError(wording: { geocoderSentence(for: error, in: $0) })
    }

    /// What the directory said, as one clean line, or nil when it said nothing.
    private static func detail(_ text: String) -> String? {
        let cleaned = TextSanitizer.untrusted(text, maxBytes: 200).trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : cleaned
    }
}
