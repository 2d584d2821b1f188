import BotKit
import Yams

/// Environment variables that override config keys: `ONTHEMAP_` and the key's path in capitals,
/// its sections separated by two underscores (`irc.tls_ca_file` → `ONTHEMAP_IRC__TLS_CA_FILE`,
/// `plugins.near.units` → `ONTHEMAP_PLUGINS__NEAR__UNITS`). The value is the key's text as is (a
/// number or `true`/`false` where the key wants one); a value that starts with `[` or `{` is read
/// as a YAML list or map (`ONTHEMAP_IRC__CHANNELS='["#class", "#lab"]'`). An empty variable is
/// ignored. A variable naming no key is reported like an unknown key of the file. In a list of
/// named sections, a part names the entry by its name: `networks:`' entry `libera` →
/// `ONTHEMAP_NETWORKS__LIBERA__SASL__PASSWORD` (a network named with a dot or a dash has no such
/// variable).
enum ConfigEnvironment {
    static let prefix = "ONTHEMAP_"
    static let separator = "__"

    /// One override: the key path and where it came from.
    struct Override {
        var path: [String]
        var variable: String
        var value: String
    }

    /// The overrides in `environment`, in a stable order. Variables without the separator (the
    /// secrets' shorter names, the scripts' own settings) are not overrides of this kind.
    static func overrides(in environment: [String: String]) -> [Override] {
        environment.compactMap { variable, value -> Override? in
            guard variable.hasPrefix(prefix), variable.contains(separator), !value.isEmpty else { return nil }
            let path = variable.dropFirst(prefix.count).components(separatedBy: separator).map { $0.lowercased() }
            return Override(path: path, variable: variable, value: value)
        }.sorted { $0.variable < $1.variable }
    }

    /// `root` with every override of `environment` put in place; problems name the variable.
    static func apply(_ environment: [String: String], to root: SettingsValue?) -> (SettingsValue?, [ConfigProblem]) {
        var result = root
        var problems: [ConfigProblem] = []
        for override in overrides(in: environment) {
            guard !override.path.contains(where: \.isEmpty) else {
                problems.append(
                    ConfigProblem(key: "", message: "\(override.variable) names no config key (an empty part)"))
                continue
            }
            guard let value = parse(override.value) else {
                problems.append(
                    ConfigProblem(
                        key: override.path.joined(separator: "."),
                        message: "\(override.variable) starts with [ or { but is not a YAML list or map"))
                continue
            }
            guard let updated = setting(value, at: override.path[...], in: result ?? .section([])) else {
                problems.append(
                    ConfigProblem(
                        key: override.path.joined(separator: "."),
                        message: "\(override.variable) goes inside a key that is not a section"))
                continue
            }
            result = updated
        }
        return (result, problems)
    }

    /// The value of a variable: its text as a scalar, or a YAML flow list or map.
    static func parse(_ text: String) -> SettingsValue? {
        if let first = text.first, first == "[" || first == "{" {
            guard let node = try? Yams.compose(yaml: text), node.sequence != nil || node.mapping != nil else {
                return nil
            }
            return try? ConfigLoader.settingsValue(node)
        }
        let node = Node.scalar(.init(text))
        return .scalar(.init(text: text, isNull: false, bool: node.bool, int: node.int, double: node.float))
    }

    /// `tree` with `value` at `path`, making the sections on the way; nil when a part of the way
    /// is a scalar or a list.
    private static func setting(_ value: SettingsValue, at path: ArraySlice<String>, in tree: SettingsValue)
        -> SettingsValue?
    {
        guard let key = path.first else { return value }
        var entries: [SettingsValue.Entry]
        switch tree {
        case .list(var items):
            // A list of named sections (`networks:`): the part names an entry by its `name`.
            guard path.count > 1, let index = items.firstIndex(where: { named(key, $0) }),
                let updated = setting(value, at: path.dropFirst(), in: items[index])
            else { return nil }
            items[index] = updated
            return .list(items)
        case .section(let existing): entries = existing
        case .scalar(let scalar) where scalar.isNull: entries = []
        default: return nil
        }
        let index = entries.firstIndex { $0.key == key }
        let inner = index.map { entries[$0].value } ?? .section([])
        guard let updated = setting(value, at: path.dropFirst(), in: path.count == 1 ? .section([]) : inner) else {
            return nil
        }
        if let index { entries[index].value = updated } else { entries.append(.init(key: key, value: updated)) }
        return .section(entries)
    }

    /// Whether `item` is a section whose `name` is `key` (variables are in capitals: any case).
    private static func named(_ key: String, _ item: SettingsValue) -> Bool {
        guard let name = item.entries?.last(where: { $0.key == "name" })?.value.text else { return false }
        return name.lowercased() == key
    }
}
