import Foundation
import OnTheMapService
import PostgresNIO

/// A parsed `postgres://user:password@host:port/database?sslmode=disable|prefer|require` URL.
/// Its `description` never shows the password.
public struct PostgresConnectionURL: Sendable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it (PostgreSQL's default).
        case prefer
        /// TLS with certificate verification, or no connection.
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    public var tls: TLSMode

    /// Parses a URL; throws `.rejectedInput` (without echoing the URL) when it is not one.
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw ServiceError.rejectedInput("The PostgreSQL URL must look like postgres://user@host:port/database.")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ServiceError.rejectedInput("The PostgreSQL URL has no host.")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ServiceError.rejectedInput("The PostgreSQL URL has no user name.")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        switch mode {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        default: throw ServiceError.rejectedInput("Unknown sslmode '\(mode)' in the PostgreSQL URL.")
        }
    }

    /// The URL with the password replaced by `***`, safe for logs.
    public var description: String {
        let credentials = password == nil ? username : "\(username):***"
        return "postgres://\(credentials)@\(host):\(port)/\(database ?? "")?sslmode=\(tls.rawValue)"
    }

    /// The same server, another database (tests make one database per test).
    public func with(database: String) -> PostgresConnectionURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The configuration for a `PostgresClient`.
    public var clientConfiguration: PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS
        switch tls {
        case .disable: tlsSetting = .disable
        case .prefer: tlsSetting = .prefer(.makeClientConfiguration())
        case .require: tlsSetting = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsSetting)
    }
}
