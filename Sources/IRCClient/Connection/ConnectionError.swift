import NIOSSL

/// How a connection's end is reported when the pipeline failed (TLS, a reset…).
enum ConnectionError {
    /// How ``describe(_:)`` starts the reason of a refused server certificate.
    static let certificateRefused = "TLS certificate verification failed"

    /// The error in words for the log and the ``IRCEvent/disconnected(reason:)`` event.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "\(certificateRefused) (untrusted or mismatched certificate): \(text)"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "\(certificateRefused) (the certificate is not valid for the host name): \(text)"
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return "TLS error: \(text)"
        }
        return text
    }
}
