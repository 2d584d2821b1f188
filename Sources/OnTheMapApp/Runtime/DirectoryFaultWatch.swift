import Logging
import OnTheMapService
import NIOConcurrencyHelpers

/// Keeps track of whether the class directory can be read and written, from the outcome of every
/// call: the first failure that says it cannot (locked, read-only, full, unreachable) logs one
/// warning with the cause, and the first success that proves it works again logs one line more.
/// Failures in between change nothing in the log, however many commands meet them.
final class DirectoryFaultWatch: Sendable {
    private let fault = NIOLockedValueBox<String?>(nil)
    private let backendName: String
    private let logger: Logger

    init(backendName: String, logger: Logger) {
        self.backendName = backendName
        self.logger = logger
    }

    /// The cause of the current fault, or nil while the directory works.
    var currentFault: String? { fault.withLockedValue { $0 } }

    /// The cause when `error` means the directory itself cannot be used, or nil for the failures
    /// that are no fault of it (a wrong password, a refused input).
    static func cause(of error: any Error) -> String? {
        switch error as? ServiceError {
        case .unavailable(let cause): return cause
        case .networkUnreachable: return ServiceErrorText.describe(error)
        default: return nil
        }
    }

    /// Records the outcome of a failed call.
    func failed(_ error: any Error) {
        guard let cause = Self.cause(of: error) else { return }
        let isNew = fault.withLockedValue { current in
            defer { current = cause }
            return current == nil
        }
        if isNew {
            logger.warning(
                "the class directory cannot be read or written: \(cause)",
                metadata: ["backend": "\(backendName)", "cause": "\(cause)"])
        }
    }

    /// Records a call that read and wrote the directory successfully.
    func worked() {
        let previous = fault.withLockedValue { current in
            defer { current = nil }
            return current
        }
        if let previous {
            logger.notice(
                "the class directory works again", metadata: ["backend": "\(backendName)", "was": "\(previous)"])
        }
    }
}
