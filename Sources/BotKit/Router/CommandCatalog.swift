/// Every command the router knows, by name and alias, with the plugin that declared it.
public struct CommandCatalog: Sendable {
    /// One registered command.
    public struct Entry: Sendable {
        public var pluginName: String
        public var command: Command
    }

    /// In declaration order (for `!help`).
    public private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]
    /// The plugins, in the order given (the ``SessionGate`` finds its services-account sign-ins
    /// among them).
    public let plugins: [any Plugin]

    public init(plugins: [any Plugin]) {
        self.plugins = plugins
        for plugin in plugins {
            for command in plugin.commands {
                let position = entries.count
                var added = false
                for word in [command.name] + command.aliases where index[word] == nil {
                    index[word] = position
                    added = true
                }
                if added { entries.append(Entry(pluginName: plugin.name, command: command)) }
            }
        }
    }

    /// The command for a typed word (name or alias), lowercase.
    public func lookup(_ word: String) -> Entry? {
        index[word.lowercased()].map { entries[$0] }
    }
}
