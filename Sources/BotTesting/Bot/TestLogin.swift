import BotKit
import Foundation

/// A login for tests of the plugin host: a name and when it ends.
public struct TestLogin: ExpiringLogin, Hashable {
    public var name: String
    public var expiresAt: Date
    /// A test login outlives its owner's connection, like a password login.
    public var endsWithConnection: Bool { false }

    /// A login of `name` that ends `seconds` from now.
    public init(_ name: String, expiresIn seconds: TimeInterval = 3600) {
        self.name = name
        self.expiresAt = Date().addingTimeInterval(seconds)
    }
}
