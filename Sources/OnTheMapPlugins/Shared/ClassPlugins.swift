import BotKit

/// The class command plugins, by the names the config uses (`plugins.enabled`).
public enum ClassPlugins {
    /// Every class plugin name, in `!help` order (the core plugin "help" is BotKit's).
    public static let names = ["login", "where", "near", "post", "list", "refresh", "map", "announce"]

    /// The plugins whose names are in `enabled`, sharing `services`.
    public static func make(enabled: some Collection<String>, services: ClassServices) -> [any Plugin] {
        let wanted = Set(enabled.map { $0.lowercased() })
        var plugins: [any Plugin] = []
        for name in names where wanted.contains(name) {
            switch name {
            case "login": plugins.append(LoginPlugin(services: services))
            case "where": plugins.append(WherePlugin(services: services))
            case "near": plugins.append(NearPlugin(services: services))
            case "post": plugins.append(PostPlugin(services: services))
            case "list": plugins.append(ListPlugin(services: services))
            case "refresh": plugins.append(RefreshPlugin(services: services))
            case "map": plugins.append(MapPlugin(services: services))
            case "announce": plugins.append(AnnouncePlugin(services: services))
            default: break
            }
        }
        return plugins
    }
}
