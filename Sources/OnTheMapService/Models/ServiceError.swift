/// Every failure of the service layer, typed so that a plugin can turn it into one human sentence.
public enum ServiceError: Error, Sendable, Equatable {
    /// No answer from the backend at all: DNS, connection refused, timeout, TLS failure.
    case networkUnreachable(String)
    /// Wrong email or password.
    case invalidCredentials
    /// The session is unknown or has expired.
    case sessionExpired
    /// The thing asked for does not exist.
    case notFound(String)
    /// The input was refused before or by the backend, with a reason a person can read.
    case rejectedInput(String)
    /// The backend is there but cannot read or write just now: a database locked by another
    /// process, a read-only or full disk, an unreadable file. The text names the cause for the operator.
    case unavailable(String)
    /// The backend answered with an error (HTTP status or database failure) and a message.
    case backendFailure(status: Int?, message: String)
    /// The backend answered something that could not be understood.
    case malformedResponse(String)
    /// Too many attempts; try again after the given number of seconds.
    case throttled(retryAfterSeconds: Int)
    /// The backend cannot do this (e.g. registration on the Udacity API).
    case unsupported(String)
}

extension ServiceError {
    /// What a directory without trips (the Udacity-compatible API, which keeps one pin per student)
    /// answers to a pin that carries one.
    public static let tripsUnavailable = ServiceError.unsupported(
        "This class directory (the Udacity-compatible API) keeps one pin per student: it has no trips.")

    /// What setting a trip answers when the account has no pin: a trip shows instead of a home pin.
    public static let tripNeedsPin = ServiceError.notFound("This account has no pin, and a trip needs one.")
}
