/// A plugin that keeps state across restarts: the host calls ``restore(context:)`` once the plugin is
/// made and before the bot reads commands for it (at start, and for a plugin a config reload made
/// afresh), so what it kept is back before anyone asks for it.
public protocol RestoringPlugin: Plugin {
    /// Reads back what the plugin kept. A store that cannot be read is logged and leaves the plugin
    /// as if nothing was kept (and it keeps nothing until it can read its store).
    func restore(context: PluginContext) async
}
