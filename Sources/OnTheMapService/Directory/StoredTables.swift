/// Every table a local directory keeps (SQLite, PostgreSQL), and what each holds about students:
/// the list ``AccountDirectory/eraseAccount(accountKey:)``, ``AccountDirectory/accountRecord(_:)``
/// and ``AccountDirectory/flushErasures(pins:)`` are written against. A table in either schema
/// that is not listed here is a test failure (`StoredTableTests`), so a new table must say how an
/// erasure takes a student out of it and how an export shows it. The state store's own values
/// (`bot_state`) are listed one by one in the plugins' `KeptStateRegistry`.
public enum StoredTables {
    /// The backends that have a table.
    public enum Backend: Sendable, Hashable, CaseIterable {
        case sqlite, postgres
    }

    /// What a table holds about students.
    public enum Holding: Sendable, Hashable {
        /// Student data: how an erasure takes it out, and where an export shows it.
        case studentData(erasure: String, export: String)
        /// Nothing about any student (the reason, for the reader).
        case nothingAboutStudents(because: String)
    }

    public struct Table: Sendable, Hashable {
        public let name: String
        public let holding: Holding
        public let backends: Set<Backend>
    }

    public static let all: [Table] = [
        Table(
            name: "accounts",
            holding: .studentData(
                erasure: "the row is deleted", export: "account (the password hash is never exported)"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "sessions",
            holding: .studentData(
                erasure: "deleted with the account", export: "sessions (times only; ids are kept as digests)"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "student_locations",
            holding: .studentData(
                erasure: "the pin and its trip are deleted, leaving a tombstone", export: "pin, with its trip"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "pin_versions",
            holding: .studentData(
                erasure: "every earlier version of the pin is deleted (and of a pin made coarser)",
                export: "not exported: each version lasts an hour, for readers of the change feed"),
            backends: [.postgres]),
        Table(
            name: "pin_removals",
            holding: .nothingAboutStudents(
                because: "tombstones hold the removed pin's objectId alone; an erasure blanks its account key"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "services_links",
            holding: .studentData(erasure: "deleted with the account", export: "servicesLinks"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "account_events",
            holding: .nothingAboutStudents(
                because: "a digest of the account key and the services account of an unlink, kept an hour"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "bot_state",
            holding: .studentData(
                erasure: "per value, as KeptStateRegistry lists", export: "per value, as KeptStateRegistry lists"),
            backends: [.sqlite, .postgres]),
        Table(
            name: "grdb_migrations", holding: .nothingAboutStudents(because: "the schema's version"),
            backends: [.sqlite]),
        Table(
            name: "sqlite_sequence", holding: .nothingAboutStudents(because: "SQLite's counters"),
            backends: [.sqlite]),
        Table(
            name: "onthemap_schema_migrations", holding: .nothingAboutStudents(because: "the schema's version"),
            backends: [.postgres]),
    ]

    /// The names of the tables `backend` has.
    public static func names(on backend: Backend) -> Set<String> {
        Set(all.filter { $0.backends.contains(backend) }.map(\.name))
    }
}
