import Foundation
import OnTheMapApp
import Testing

/// `service.api` and the web listener's TLS: off by default, and never taking passwords in clear
/// beyond this machine.
@Suite struct APIConfigTests {
    static func yaml(listen: String = "127.0.0.1:8080", web: String = "", backend: String = "local", api: Bool = true)
        -> String
    {
        """
        \(ConfigTests.minimal)
        service:
          backend: \(backend)
          udacity_url: https://onthemap-api.udacity.com/v1
          api: {enabled: \(api)}
        web:
          enabled: true
          listen: "\(listen)"
          public_url: https://map.example.org
        \(web)
        """
    }

    func problems(_ yaml: String) -> [ConfigProblem] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func theAPIIsOffByDefault() throws {
        let config = try ConfigLoader.parse(yaml: ConfigTests.minimal)
        #expect(!config.service.api.enabled)
        #expect(config.web.visibility == .class, "the class is for signed-in students unless the operator opens it")
        #expect(!config.web.servesTLS)
        #expect(!config.web.behindProxy)
        let on = try ConfigLoader.parse(yaml: Self.yaml())
        #expect(on.service.api.enabled)
        #expect(on.web.visibility == .class)
    }

    @Test func aNonLoopbackListenerNeedsTLSOrAProxy() throws {
        let clear = problems(Self.yaml(listen: "0.0.0.0:8080"))
        #expect(clear.map(\.key) == ["web.listen"])
        #expect(clear.first?.message.contains("in clear") == true)
        #expect(problems(Self.yaml(listen: "192.0.2.7:8080")).map(\.key) == ["web.listen"])
        #expect(problems(Self.yaml(listen: "0.0.0.0:8080", api: false)).isEmpty, "the map alone takes no passwords")
        #expect(problems(Self.yaml(listen: "[::1]:8080")).isEmpty)
        #expect(problems(Self.yaml(listen: "localhost:8080")).isEmpty)
        #expect(problems(Self.yaml(listen: "0.0.0.0:8080", web: "  behind_proxy: true")).isEmpty)
        let tls = Self.yaml(listen: "0.0.0.0:8443", web: "  tls_cert: /etc/x.pem\n  tls_key: /etc/x.key")
        #expect(problems(tls).isEmpty)
        #expect(try ConfigLoader.parse(yaml: tls).web.servesTLS)
    }

    @Test func tlsNeedsBothFiles() {
        #expect(problems(Self.yaml(web: "  tls_cert: /etc/x.pem")).map(\.key) == ["web.tls_key"])
        #expect(problems(Self.yaml(web: "  tls_key: /etc/x.key")).map(\.key) == ["web.tls_cert"])
    }

    @Test func theAPIServesOnlyTheBotsOwnDirectoryOnTheWebListener() {
        #expect(problems(Self.yaml(backend: "udacity")).map(\.key) == ["service.api.enabled"])
        let noWeb = ConfigTests.minimal + "\nservice:\n  api: {enabled: true}\n"
        #expect(problems(noWeb).map(\.key) == ["service.api.enabled"])
    }

    @Test func anUnknownAPIKeyIsNamed() {
        let yaml = ConfigTests.minimal + "\nservice:\n  api: {enabled: false, read_only: true}\n"
        #expect(problems(yaml).map(\.key) == ["service.api.read_only"])
    }
}
