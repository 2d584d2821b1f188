#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Errors about the TLS settings or the server's certificate.
public enum IRCTLSError: Error, Sendable, CustomStringConvertible {
    /// The configured pin is not a SHA-256 fingerprint.
    case invalidPinnedFingerprint(String)
    /// A certificate, key or CA file could not be loaded.
    case unreadableFile(path: String, reason: String)
    /// A client certificate was given without its key, or the other way round.
    case incompleteClientCertificate
    /// The server's certificate does not match the pinned fingerprint.
    case fingerprintMismatch(expected: String, presented: String)
    /// The process had no file descriptor left to open a TLS file (or to load the trust store):
    /// the settings may be right, and a later attempt may work.
    case outOfFileDescriptors(path: String?)

    /// Whether trying again later may work (nothing in the settings is wrong).
    public var isTransient: Bool {
        if case .outOfFileDescriptors = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .invalidPinnedFingerprint(let value):
            return "the pinned TLS fingerprint '\(value)' is not a SHA-256 fingerprint (64 hex digits)"
        case .unreadableFile(let path, let reason):
            return "cannot load TLS file \(path): \(reason)"
        case .incompleteClientCertificate:
            return "a TLS client certificate needs both a certificate file and a key file"
        case .fingerprintMismatch(let expected, let presented):
            return
                "the server's TLS certificate fingerprint \(presented) does not match the pinned \(expected)"
        case .outOfFileDescriptors(let path):
            let what = path.map { "TLS file \($0)" } ?? "the TLS trust store"
            return "cannot open \(what): the process is out of file descriptors (too many open files)"
        }
    }
}

/// Builds the NIOSSL client context and handler from ``IRCClientConfiguration/TLS``.
///
/// TLS 1.2 is the minimum. Without a pin, the chain is verified against the system store and/or the CA file
/// and the host name is checked (the IP address for IP literals, which get no SNI). With a pin, a custom
/// verification callback accepts the certificate only when the SHA-256 of the leaf's DER matches; on a
/// mismatch the handshake fails and the reason is kept in ``lastPinFailure`` — it never falls back to
/// plaintext.
final class IRCTLSSetup: Sendable {
    let context: NIOSSLContext
    let serverHostname: String?
    let pinnedFingerprint: CertificateFingerprint?
    /// The name the certificate must be for (the server name, else the host).
    let expectedName: String
    /// The certificates of the CA file (for the diagnosis of a refused certificate).
    let trustedCertificates: [NIOSSLCertificate]
    private let pinFailure = NIOLockedValueBox<IRCTLSError?>(nil)
    private let logger: Logger

    init(configuration: IRCClientConfiguration.TLS, host: String, logger: Logger) throws {
        self.logger = logger
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        var trusted: [NIOSSLCertificate] = []
        if let caFile = configuration.caFile, !caFile.isEmpty {
            do {
                let certificates = try NIOSSLCertificate.fromPEMBytes(try Self.readFile(caFile))
                trusted = certificates
                if configuration.trustSystemRoots {
                    tls.trustRoots = .default
                    tls.additionalTrustRoots = [.certificates(certificates)]
                } else {
                    tls.trustRoots = .certificates(certificates)
                }
            } catch let error as IRCTLSError {
                throw error
            } catch {
                throw IRCTLSError.unreadableFile(path: caFile, reason: "\(error)")
            }
        } else {
            tls.trustRoots = .default
        }
        switch (configuration.clientCertificateFile, configuration.clientKeyFile) {
        case (let certificateFile?, let keyFile?):
            do {
                let chain = try NIOSSLCertificate.fromPEMBytes(try Self.readFile(certificateFile))
                tls.certificateChain = chain.map { .certificate($0) }
            } catch let error as IRCTLSError {
                throw error
            } catch {
                throw IRCTLSError.unreadableFile(path: certificateFile, reason: "\(error)")
            }
            do {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: try Self.readFile(keyFile), format: .pem))
            } catch let error as IRCTLSError {
                throw error
            } catch {
                throw IRCTLSError.unreadableFile(path: keyFile, reason: "\(error)")
            }
        case (nil, nil):
            break
        default:
            throw IRCTLSError.incompleteClientCertificate
        }
        if let pin = configuration.pinnedFingerprint, !pin.isEmpty {
            guard let fingerprint = CertificateFingerprint(hex: pin) else {
                throw IRCTLSError.invalidPinnedFingerprint(pin)
            }
            pinnedFingerprint = fingerprint
        } else {
            pinnedFingerprint = nil
        }
        // A pin replaces chain and name checks (the callback below decides); otherwise verify both.
        tls.certificateVerification = pinnedFingerprint == nil ? .fullVerification : .noHostnameVerification
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            // Loading the system trust store opens files too: without a descriptor it fails the same
            // way as a broken store would, so ask the process whether it has one left.
            if Self.outOfFileDescriptors() { throw IRCTLSError.outOfFileDescriptors(path: nil) }
            throw error
        }
        let name = configuration.serverName ?? host
        serverHostname = Self.isIPLiteral(name) ? nil : name
        expectedName = name
        trustedCertificates = trusted
    }

    /// The pin mismatch of the most recent handshake, if that is why it failed.
    var lastPinFailure: IRCTLSError? { pinFailure.withLockedValue { $0 } }

    /// A new client handler for one connection.
    func makeHandler() throws -> NIOSSLClientHandler {
        pinFailure.withLockedValue { $0 = nil }
        guard let pinnedFingerprint else {
            return try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
        }
        let logger = self.logger
        let failure = pinFailure
        return try NIOSSLClientHandler(context: context, serverHostname: serverHostname) {
            certificates,
            promise in
            guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else {
                promise.succeed(.failed)
                return
            }
            let presented = CertificateFingerprint(derCertificate: der)
            if presented == pinnedFingerprint {
                promise.succeed(.certificateVerified)
            } else {
                let error = IRCTLSError.fingerprintMismatch(
                    expected: pinnedFingerprint.description,
                    presented: presented.description
                )
                failure.withLockedValue { $0 = error }
                logger.error("Refusing the server: \(error)")
                promise.succeed(.failed)
            }
        }
    }

    /// The bytes of the file at `path`, read with open(2) so that the reason of a failure is known:
    /// no descriptor left is ``IRCTLSError/outOfFileDescriptors(path:)`` (a later attempt may work),
    /// any other failure (missing, not readable) is ``IRCTLSError/unreadableFile(path:reason:)``.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == EMFILE || code == ENFILE { throw IRCTLSError.outOfFileDescriptors(path: path) }
            throw IRCTLSError.unreadableFile(path: path, reason: String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw IRCTLSError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether the process cannot open a file now because it has no descriptor left.
    static func outOfFileDescriptors() -> Bool {
        let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return false
        }
        return errno == EMFILE || errno == ENFILE
    }

    static func isIPLiteral(_ name: String) -> Bool {
        (try? SocketAddress(ipAddress: name, port: 0)) != nil
            || (name.hasPrefix("[") && name.hasSuffix("]"))
    }
}
