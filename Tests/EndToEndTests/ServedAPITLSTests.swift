import AsyncHTTPClient
import BotTesting
import Foundation
import NIOSSL
import OnTheMapApp
import Testing

/// The web listener with `web.tls_cert`/`web.tls_key`: the API over HTTPS only, with Secure cookies.
@Suite("Served v1 API over TLS")
struct ServedAPITLSTests {
    @Test func theAPISpeaksHTTPSOnlyWithSecureCookies() async throws {
        let folder = try TemporaryDirectory(prefix: "api-tls")
        let certificate = try await TestCertificate.make(in: folder.path)
        let tls = try WebMapServer.tlsConfiguration(
            certificateFile: certificate.certificatePath, keyFile: certificate.keyPath)
        var clientTLS = TLSConfiguration.makeClientConfiguration()
        clientTLS.trustRoots = .file(certificate.certificatePath)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: clientTLS))
        do {
            try await ServedClassAPI.with(.sqlite, settings: .init(secureCookies: true), tls: tls) { api in
                #expect(api.baseURL.hasPrefix("https://"))
                let https = RawHTTP(baseURL: api.baseURL, client: client)
                let login = try await https.logIn(api.ada.email, api.ada.password)
                #expect(login.status == 200)
                #expect(login.setCookies["onthemap_session"]?.contains("; Secure") == true)
                #expect(login.setCookies["XSRF-TOKEN"]?.contains("; Secure") == true)
                #expect(try await https.send(.GET, "/StudentLocation?limit=1").status == 200)

                // Plain HTTP on the same port gets no answer: a password never crosses in clear.
                let plain = RawHTTP(baseURL: api.baseURL.replacingOccurrences(of: "https://", with: "http://"))
                await #expect(throws: (any Error).self) {
                    _ = try await plain.logIn(api.ada.email, api.ada.password)
                }
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func unreadableFilesAreNamed() async throws {
        let folder = try TemporaryDirectory(prefix: "api-tls-bad")
        let certificate = try await TestCertificate.make(in: folder.path)
        #expect {
            _ = try WebMapServer.tlsConfiguration(
                certificateFile: folder.file("missing.pem"), keyFile: certificate.keyPath)
        } throws: { error in
            "\(error)".contains("missing.pem")
        }
        #expect {
            _ = try WebMapServer.tlsConfiguration(
                certificateFile: certificate.certificatePath, keyFile: certificate.certificatePath)
        } throws: { error in
            "\(error)".contains("private key")
        }
    }
}
