import Foundation
import Logging
import NIOConcurrencyHelpers
import OnTheMapService
import PostgresNIO

/// The PostgreSQL connection pool of a directory: runs queries with the operation timeout and
/// turns every failure into a `ServiceError`.
struct PostgresStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let operationTimeout: Duration

    /// Runs `operation` with the operation timeout and turns every failure into a `ServiceError`.
    @discardableResult
    func guarded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withTimeout(operation)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw Self.serviceError(error)
        }
    }

    /// Runs `operation` and answers within the operation timeout, whatever the operation does: past
    /// it, the operation is cancelled and the caller gets `.networkUnreachable` at once. PostgresNIO
    /// cannot cancel a query it has sent, so a query whose answer does not come (one waiting for a
    /// lock held elsewhere, a connection that no longer answers) would otherwise hold its caller, a
    /// command or the announcer, until it does; the operation ends on its own when its query does.
    func withTimeout<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = operationTimeout
        let outcome = FirstOutcome<T>()
        let work = Task {
            do { outcome.settle(.success(try await operation())) } catch { outcome.settle(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            outcome.settle(.failure(ServiceError.networkUnreachable("PostgreSQL did not answer within \(timeout).")))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }

    static func serviceError(_ error: any Error) -> any Error {
        if let error = error as? ServiceError { return error }
        if error is CancellationError { return error }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return serviceError(inner) }
            return ServiceError.backendFailure(status: nil, message: "PostgreSQL transaction failed.")
        }
        if let error = error as? PSQLError {
            guard error.code == .server else {
                return ServiceError.networkUnreachable("PostgreSQL connection failed (\(error.code)).")
            }
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "error"
            if state == "23505" { return ServiceError.rejectedInput("That already exists.") }
            // Class 08: connection exception; 57P: operator intervention (shutdown, restart).
            if state.hasPrefix("08") || state.hasPrefix("57P") {
                return ServiceError.networkUnreachable("PostgreSQL \(state): \(message)")
            }
            // The database is there but cannot read or write just now: a lock held elsewhere (55P03),
            // a statement cancelled by a timeout (57014), insufficient resources (class 53: disk full,
            // too many connections), a read-only server (25006), no privilege on a table (42501).
            if ["55P03", "57014", "25006", "42501"].contains(state) || state.hasPrefix("53") {
                return ServiceError.unavailable("PostgreSQL \(state): \(message)")
            }
            return ServiceError.backendFailure(status: nil, message: "PostgreSQL \(state): \(message)")
        }
        return ServiceError.networkUnreachable("PostgreSQL cannot be reached (\(type(of: error))).")
    }
}

extension PostgresStore: AccountStorage {
    func credentials(email: String) async throws -> AccountCredentials? {
        try await guarded { [client, logger] in
            try await client.query(
                "SELECT account_key, password_hash FROM accounts WHERE email = \(email)", logger: logger
            ).decode((String, String).self).first { _ in true }.map(AccountCredentials.init)
        }
    }

    func startSession(_ session: StoredSession, replacementHash: String?) async throws {
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    DELETE FROM sessions WHERE account_key = \(session.accountKey)
                    AND expires_at <= \(session.createdAt)
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO sessions (token_digest, account_key, created_at, expires_at)
                    VALUES (\(session.tokenDigest), \(session.accountKey), \(session.createdAt), \(session.expiresAt))
                    """, logger: logger)
                if let replacementHash {
                    try await connection.query(
                        "UPDATE accounts SET password_hash = \(replacementHash) WHERE account_key = \(session.accountKey)",
                        logger: logger)
                }
            }
        }
    }

    func session(digest: String) async throws -> StoredSession? {
        try await guarded { [client, logger] in
            try await client.query(
                "SELECT account_key, created_at, expires_at FROM sessions WHERE token_digest = \(digest)",
                logger: logger
            ).decode((String, Date, Date).self).first { _ in true }.map { key, created, expires in
                StoredSession(tokenDigest: digest, accountKey: key, createdAt: created, expiresAt: expires)
            }
        }
    }

    func hasAccount(key: String) async throws -> Bool {
        try await guarded { [client, logger] in
            try await client.query("SELECT 1 FROM accounts WHERE account_key = \(key)", logger: logger)
                .decode(Int32.self).first { _ in true } != nil
        }
    }

    func deleteSession(digest: String) async throws {
        try await guarded { [client, logger] in
            try await client.query("DELETE FROM sessions WHERE token_digest = \(digest)", logger: logger)
        }
    }

    func deleteSessions(accountKey: String) async throws -> Int {
        try await guarded { [client, logger] in
            var count = 0
            let rows = try await client.query(
                "DELETE FROM sessions WHERE account_key = \(accountKey) RETURNING 1", logger: logger)
            for try await _ in rows.decode(Int32.self) { count += 1 }
            return count
        }
    }

    func insertAccount(_ account: LocalAccount, passwordHash: String) async throws -> LocalAccount? {
        do {
            return try await guarded { [client, logger] in
                let rows = try await client.query(
                    """
                    INSERT INTO accounts (account_key, email, first_name, last_name, password_hash, created_at)
                    VALUES (\(account.accountKey), \(account.email), \(account.firstName), \(account.lastName),
                        \(passwordHash), \(account.createdAt))
                    RETURNING created_at
                    """, logger: logger)
                guard let createdAt = try await rows.decode(Date.self).first(where: { _ in true }) else {
                    throw ServiceError.malformedResponse("No account saved.")
                }
                var stored = account
                stored.createdAt = createdAt
                return stored
            }
        } catch ServiceError.rejectedInput("That already exists.") {
            return nil
        }
    }

    func deleteAccount(email: String) async throws -> Bool {
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let key = try await connection.query(
                    "SELECT account_key FROM accounts WHERE email = \(email) FOR UPDATE", logger: logger
                ).decode(String.self).first { _ in true }
                guard let key else { return false }
                try await PostgresStudentDirectory.lockPinWrites(connection, logger: logger)
                try await PostgresStudentDirectory.removePins(uniqueKey: key, connection, logger: logger)
                try await connection.query("DELETE FROM sessions WHERE account_key = \(key)", logger: logger)
                try await connection.query("DELETE FROM services_links WHERE account_key = \(key)", logger: logger)
                try await connection.query("DELETE FROM accounts WHERE account_key = \(key)", logger: logger)
                return true
            }
        }
    }

    func replacePassword(email: String, passwordHash: String) async throws -> Bool {
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let key = try await connection.query(
                    "SELECT account_key FROM accounts WHERE email = \(email) FOR UPDATE", logger: logger
                ).decode(String.self).first { _ in true }
                guard let key else { return false }
                try await connection.query(
                    "UPDATE accounts SET password_hash = \(passwordHash) WHERE account_key = \(key)", logger: logger)
                try await connection.query("DELETE FROM sessions WHERE account_key = \(key)", logger: logger)
                return true
            }
        }
    }

    func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink? {
        try await guarded { [client, logger] in
            try await Self.servicesLinks(
                client.query(
                    """
                    SELECT account_key, network, services_account, folded_account, created_at FROM services_links
                    WHERE network = \(network) AND folded_account = \(foldedAccount)
                    """, logger: logger)
            ).first
        }
    }

    func servicesLinks(accountKey: String) async throws -> [ServicesAccountLink] {
        try await guarded { [client, logger] in
            try await Self.servicesLinks(
                client.query(
                    """
                    SELECT account_key, network, services_account, folded_account, created_at FROM services_links
                    WHERE account_key = \(accountKey) ORDER BY network
                    """, logger: logger))
        }
    }

    func insertServicesLink(_ link: ServicesAccountLink) async throws -> ServicesLinkInsertion {
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // The account's row is locked: two links of one account are stored one at a time.
                let found = try await connection.query(
                    "SELECT 1 FROM accounts WHERE account_key = \(link.accountKey) FOR UPDATE", logger: logger
                ).decode(Int32.self).first { _ in true }
                guard found != nil else { return .noAccount }
                if let taken = try await Self.servicesLinks(
                    connection.query(
                        """
                        SELECT account_key, network, services_account, folded_account, created_at FROM services_links
                        WHERE network = \(link.network) AND folded_account = \(link.foldedAccount)
                        """, logger: logger)
                ).first {
                    return taken.accountKey == link.accountKey ? .alreadyLinked(taken) : .servicesAccountTaken(taken)
                }
                if let own = try await Self.servicesLinks(
                    connection.query(
                        """
                        SELECT account_key, network, services_account, folded_account, created_at FROM services_links
                        WHERE account_key = \(link.accountKey) AND network = \(link.network)
                        """, logger: logger)
                ).first {
                    return .classAccountLinked(own)
                }
                try await connection.query(
                    """
                    INSERT INTO services_links (account_key, network, services_account, folded_account, created_at)
                    VALUES (\(link.accountKey), \(link.network), \(link.servicesAccount), \(link.foldedAccount),
                        \(link.createdAt))
                    """, logger: logger)
                return .stored
            }
        }
    }

    func deleteServicesLink(accountKey: String, network: String) async throws -> ServicesAccountLink? {
        try await guarded { [client, logger] in
            try await Self.servicesLinks(
                client.query(
                    """
                    WITH removed AS (
                        DELETE FROM services_links WHERE account_key = \(accountKey) AND network = \(network)
                        RETURNING account_key, network, services_account, folded_account, created_at),
                    pruned AS (
                        DELETE FROM account_events
                        WHERE at < now() - make_interval(secs => \(AccountEvent.memory))),
                    event AS (
                        INSERT INTO account_events (kind, account_digest, network, folded_account)
                        SELECT \(AccountEvent.Kind.unlinked.rawValue), \(AccountEvent.digest(accountKey: accountKey)),
                            network, folded_account
                        FROM removed)
                    SELECT account_key, network, services_account, folded_account, created_at FROM removed
                    """, logger: logger)
            ).first
        }
    }

    static func servicesLinks(_ rows: PostgresRowSequence) async throws -> [ServicesAccountLink] {
        var links: [ServicesAccountLink] = []
        for try await (key, network, account, folded, created) in rows.decode(
            (String, String, String, String, Date).self)
        {
            links.append(
                ServicesAccountLink(
                    accountKey: key, network: network, servicesAccount: account, foldedAccount: folded,
                    createdAt: created))
        }
        return links
    }
}

/// The first outcome settled of several racing for it (an operation, its timeout, its caller's
/// cancellation), handed to the one waiting for it; the later ones are dropped.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var waiting: CheckedContinuation<T, any Error>?
        var settled: Result<T, any Error>?
    }
    private let state = NIOLockedValueBox(State())

    func settle(_ result: Result<T, any Error>) {
        let waiting = state.withLockedValue { state -> CheckedContinuation<T, any Error>? in
            guard state.settled == nil else { return nil }
            state.settled = result
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(with: result)
    }

    /// Waits for the first outcome (returns at once when it is settled already). Called once.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLockedValue { state -> Result<T, any Error>? in
                if state.settled == nil { state.waiting = continuation }
                return state.settled
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
