import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Says in plain words what is wrong with the certificate a server presented, after the TLS verification
/// refused it (BoringSSL only reports "CERTIFICATE_VERIFY_FAILED").
///
/// ``probe(host:port:serverHostname:group:timeout:)`` connects once more with a handshake that accepts
/// nothing, only to read the certificate chain; ``problems(leaf:expectedName:trusted:now:)`` compares the
/// leaf with the clock, the expected name and the trusted certificates. Nothing here ever accepts a
/// certificate: the diagnosis only words the log line.
enum CertificateDiagnosis {
    /// The chain the server at `host:port` presents, or nil when none arrives within `timeout`.
    static func probe(
        host: String,
        port: Int,
        serverHostname: String?,
        group: any EventLoopGroup,
        timeout: Duration
    ) async -> [NIOSSLCertificate]? {
        let captured = NIOLockedValueBox<[NIOSSLCertificate]?>(nil)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .noHostnameVerification
        guard let context = try? NIOSSLContext(configuration: tls) else { return nil }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(IRCClient.nanoseconds(timeout)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let capture: NIOSSLCustomVerificationCallback = { certificates, promise in
                        captured.withLockedValue { $0 = certificates }
                        promise.succeed(.failed)
                    }
                    let handler = try NIOSSLClientHandler(
                        context: context,
                        serverHostname: serverHostname,
                        customVerificationCallback: capture
                    )
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else {
            return nil
        }
        let closer = Task {
            try? await Task.sleep(for: timeout)
            try? await channel.close()
        }
        try? await channel.closeFuture.get()
        closer.cancel()
        return captured.withLockedValue { $0 }
    }

    /// Everything wrong with `leaf` for a connection to `expectedName`, in words; empty when nothing
    /// obvious is (the chain may still be incomplete or signed by an untrusted CA: see the last rule).
    static func problems(
        leaf: NIOSSLCertificate,
        expectedName: String,
        trusted: [NIOSSLCertificate],
        now: Date = Date()
    ) -> [String] {
        var problems: [String] = []
        let notAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        let notBefore = Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))
        if notAfter < now {
            problems.append("it expired on \(format(notAfter))")
        } else if notBefore > now {
            problems.append("it is not valid before \(format(notBefore))")
        }
        let names = names(of: leaf)
        if !names.contains(where: { matches($0, expectedName) }) {
            let shown = names.isEmpty ? "no name" : names.joined(separator: ", ")
            problems.append("it is for \(shown), not for \(expectedName)")
        }
        let isTrusted = trusted.contains(leaf)
        if !isTrusted {
            if leaf.subjectName == leaf.issuerName {
                problems.append("it is self-signed and not among the trusted certificates (tls_ca_file)")
            } else {
                let issuer = commonName(leaf.issuerName) ?? "an unknown issuer"
                problems.append("it is issued by \(issuer), which is not a trusted CA")
            }
        }
        return problems
    }

    /// DNS names and IP addresses of the subject alternative names, then the common name.
    static func names(of certificate: NIOSSLCertificate) -> [String] {
        var names: [String] = []
        for name in certificate._subjectAlternativeNames() {
            let bytes = Array(name.contents)
            if name.nameType == .dnsName {
                names.append(String(decoding: bytes, as: UTF8.self))
            } else if name.nameType == .ipAddress, bytes.count == 4 {
                names.append(bytes.map(String.init).joined(separator: "."))
            }
        }
        if let common = commonName(certificate.subjectName), !names.contains(common) {
            names.append(common)
        }
        return names
    }

    private static func commonName(_ name: [SSLCertificateName]) -> String? {
        name.first { $0.type == .commonName }?.value
    }

    private static func matches(_ pattern: String, _ name: String) -> Bool {
        let pattern = pattern.lowercased()
        let name = name.lowercased()
        if pattern == name { return true }
        guard pattern.hasPrefix("*."), let dot = name.firstIndex(of: ".") else { return false }
        return name[dot...] == pattern.dropFirst()
    }

    private static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
