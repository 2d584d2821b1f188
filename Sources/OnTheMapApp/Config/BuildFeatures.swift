/// The optional parts of this build: SwiftPM package traits, both on by default (Package.swift).
/// Without `postgres` the PostgreSQL directory (and PostgresNIO) is not compiled; without
/// `udacity` neither the Udacity-compatible directory nor the Nominatim geocoder (nor
/// AsyncHTTPClient) is. A config that asks for a missing part is refused with ``Missing``'s sentence.
public enum BuildFeatures {
    public enum Feature: String, Sendable, CaseIterable {
        case postgres
        case udacity

        /// What the trait brings, in words.
        var parts: String {
            switch self {
            case .postgres: "the PostgreSQL directory"
            case .udacity: "the Udacity-compatible directory and the Nominatim geocoder"
            }
        }
    }

    /// Whether this executable was built with `feature`.
    public static func has(_ feature: Feature) -> Bool {
        switch feature {
        case .postgres:
            #if postgres
                return true
            #else
                return false
            #endif
        case .udacity:
            #if udacity
                return true
            #else
                return false
            #endif
        }
    }

    /// A config asks for a part this build left out.
    public struct Missing: Error, Sendable, CustomStringConvertible {
        public var feature: Feature

        public var description: String {
            "needs \(feature.parts), which this build of onthemap-bot leaves out (built without the \(feature.rawValue) trait): use the package, or build with the default traits (swift build -c release)"
        }
    }
}
