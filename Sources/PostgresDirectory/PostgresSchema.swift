import Logging
import PostgresNIO

/// The directory's tables, and the migrations that bring a database of any earlier version up to
/// date.
extension PostgresStudentDirectory {
    static let migrations: [(version: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE accounts (
                    account_key TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
                """
                CREATE TABLE sessions (
                    token_digest TEXT PRIMARY KEY,
                    account_key TEXT NOT NULL REFERENCES accounts(account_key) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX sessions_by_account ON sessions(account_key)",
                "CREATE SEQUENCE student_locations_revision",
                """
                CREATE TABLE student_locations (
                    object_id TEXT PRIMARY KEY,
                    unique_key TEXT NOT NULL UNIQUE,
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    map_string TEXT NOT NULL,
                    media_url TEXT NOT NULL,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    revision BIGINT NOT NULL
                )
                """,
                "CREATE INDEX student_locations_recent ON student_locations(updated_at DESC, revision DESC)",
                "CREATE TABLE bot_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        (
            "v2",
            [
                """
                CREATE TABLE pin_removals (
                    object_id TEXT PRIMARY KEY,
                    unique_key TEXT NOT NULL,
                    revision BIGINT NOT NULL
                )
                """,
                "CREATE INDEX pin_removals_by_revision ON pin_removals(revision)",
                "CREATE INDEX student_locations_by_revision ON student_locations(revision)",
            ]
        ),
        // Tombstones hold the objectId alone (see removePins(uniqueKey:_:logger:)).
        ("v3", ["UPDATE pin_removals SET unique_key = ''"]),
        // A class account's services account per IRC network (see ServicesAccountLink).
        (
            "v4",
            [
                """
                CREATE TABLE services_links (
                    account_key TEXT NOT NULL REFERENCES accounts(account_key) ON DELETE CASCADE,
                    network TEXT NOT NULL,
                    services_account TEXT NOT NULL,
                    folded_account TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    PRIMARY KEY (account_key, network),
                    UNIQUE (network, folded_account)
                )
                """
            ]
        ),
        // The versions a post replaced, so that the change feed brings every move to a reader that
        // reads after several (another instance's announcer): kept for `versionMemory`, dropped
        // with the pin (a removal, erasure or retention), and not kept when the time stays (a
        // coarsening re-stores a pin less precisely: the finer copy must not linger).
        (
            "v5",
            [
                """
                CREATE TABLE pin_versions (
                    revision BIGINT PRIMARY KEY,
                    object_id TEXT NOT NULL,
                    unique_key TEXT NOT NULL,
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    map_string TEXT NOT NULL,
                    media_url TEXT NOT NULL,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    replaced_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX pin_versions_by_object ON pin_versions(object_id)",
                "CREATE INDEX pin_versions_by_age ON pin_versions(replaced_at)",
                keepReplacedVersion(copying: versionColumns),
                """
                CREATE TRIGGER student_locations_keep_replaced BEFORE UPDATE ON student_locations
                FOR EACH ROW EXECUTE FUNCTION onthemap_keep_replaced_pin_version()
                """,
                """
                CREATE FUNCTION onthemap_forget_pin_versions() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    DELETE FROM pin_versions WHERE object_id = OLD.object_id;
                    RETURN OLD;
                END
                $$
                """,
                """
                CREATE TRIGGER student_locations_forget_versions AFTER DELETE ON student_locations
                FOR EACH ROW EXECUTE FUNCTION onthemap_forget_pin_versions()
                """,
            ]
        ),
        // A pin's trip (see StudentLocation.trip): all four set, or all four NULL. A replaced
        // version keeps the trip it had, so the change feed brings a trip set between two reads.
        (
            "v6",
            [
                """
                ALTER TABLE student_locations ADD COLUMN trip_map_string TEXT,
                    ADD COLUMN trip_latitude DOUBLE PRECISION, ADD COLUMN trip_longitude DOUBLE PRECISION,
                    ADD COLUMN trip_ends_at TIMESTAMPTZ
                """,
                """
                ALTER TABLE pin_versions ADD COLUMN trip_map_string TEXT,
                    ADD COLUMN trip_latitude DOUBLE PRECISION, ADD COLUMN trip_longitude DOUBLE PRECISION,
                    ADD COLUMN trip_ends_at TIMESTAMPTZ
                """,
                keepReplacedVersion(copying: versionColumns + tripColumns),
            ]
        ),
        // The account events running bots act on (see AccountEventFeed), kept an hour; the account
        // is named by a digest of its key.
        (
            "v7",
            [
                """
                CREATE TABLE account_events (
                    revision BIGSERIAL PRIMARY KEY,
                    kind TEXT NOT NULL,
                    account_digest TEXT NOT NULL,
                    network TEXT NOT NULL,
                    folded_account TEXT NOT NULL,
                    at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX account_events_by_age ON account_events(at)",
            ]
        ),
        // The level each pin is kept at (see KeptPin); NULL for a pin kept before levels were
        // stored. A replaced version keeps its level.
        (
            "v8",
            [
                "ALTER TABLE student_locations ADD COLUMN precision TEXT",
                "ALTER TABLE pin_versions ADD COLUMN precision TEXT",
                keepReplacedVersion(copying: versionColumns + tripColumns + ["precision"]),
            ]
        ),
    ]

    /// The columns of a pin every version in `pin_versions` has had since it was made.
    static let versionColumns = [
        "revision", "object_id", "unique_key", "first_name", "last_name", "map_string", "media_url", "latitude",
        "longitude", "created_at", "updated_at",
    ]
    /// A pin's trip columns (see the v6 migration).
    static let tripColumns = ["trip_map_string", "trip_latitude", "trip_longitude", "trip_ends_at"]

    /// The trigger function that keeps the version an update replaces in `pin_versions`, copying
    /// `columns` (each migration that adds a column to both tables makes it again with that column),
    /// and forgets versions older than ``versionMemory``.
    static func keepReplacedVersion(copying columns: [String]) -> String {
        """
        CREATE OR REPLACE FUNCTION onthemap_keep_replaced_pin_version() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.revision <> OLD.revision AND NEW.updated_at <> OLD.updated_at THEN
                INSERT INTO pin_versions (\(columns.joined(separator: ", ")))
                VALUES (\(columns.map { "OLD." + $0 }.joined(separator: ", ")))
                ON CONFLICT (revision) DO NOTHING;
                DELETE FROM pin_versions WHERE replaced_at < now() - interval '\(versionMemory)';
            END IF;
            RETURN NEW;
        END
        $$
        """
    }

    /// How long a replaced pin version stays in the change feed: a reader further behind (an
    /// instance stopped meanwhile) gets each pin's latest version only.
    static let versionMemory = "1 hour"

    /// Brings the schema up to date; safe to run again and from several instances at once.
    public func migrate() async throws {
        try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS onthemap_schema_migrations (
                        version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied: Set<String> = []
                for try await version in try await connection.query(
                    "SELECT version FROM onthemap_schema_migrations", logger: logger
                ).decode(String.self) {
                    applied.insert(version)
                }
                for migration in Self.migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO onthemap_schema_migrations (version) VALUES (\(migration.version))",
                        logger: logger)
                    logger.info("Applied schema migration", metadata: ["version": "\(migration.version)"])
                }
            }
        }
    }
}
