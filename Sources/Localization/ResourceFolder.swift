import Foundation

/// Finds a resource folder SwiftPM builds beside the executables (`OnTheMapBot_<Module>.resources`):
/// next to the running program, and next to the file a symbolic link to it points at. Unlike the
/// generated `Bundle.module`, which stops the process when its folder is missing, a missing folder
/// is an error that names the folder, what it holds and every place looked in.
public enum ResourceFolder {
    /// The folders looked in, in order: the running executable's folder (as started and with
    /// symbolic links resolved) and `Bundle.main`'s.
    public static var searchPlaces: [URL] {
        var places: [URL] = []
        let started = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        if let executable = Bundle.main.executableURL {
            places.append(executable.deletingLastPathComponent())
            places.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if started.path.contains("/") {
            places.append(started.deletingLastPathComponent())
            places.append(started.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        places.append(Bundle.main.bundleURL)
        var seen: Set<String> = []
        return places.map(\.standardizedFileURL).filter { seen.insert($0.path).inserted }
    }

    /// The URL of `item` inside the resource folder `name`, searched in `places`; throws
    /// ``ResourceFolderMissing`` (saying what the folder holds, `purpose`) when no place has it.
    public static func locate(
        _ name: String, item: String, purpose: String, in places: [URL] = searchPlaces
    ) throws(ResourceFolderMissing) -> URL {
        for place in places {
            let candidate = place.appendingPathComponent(name).appendingPathComponent(item)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        throw ResourceFolderMissing(folder: name, item: item, purpose: purpose, searched: places.map(\.path))
    }
}

/// A resource folder (or the file in it) is not where the program looks for it.
public struct ResourceFolderMissing: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder's name, like `OnTheMapBot_OnTheMapService.resources`.
    public var folder: String
    /// The file looked for inside it.
    public var item: String
    /// What the folder holds, in a few words.
    public var purpose: String
    /// The folders that were searched for it.
    public var searched: [String]

    public init(folder: String, item: String, purpose: String, searched: [String]) {
        self.folder = folder
        self.item = item
        self.purpose = purpose
        self.searched = searched
    }

    public var description: String {
        "\(folder)/\(item) (\(purpose)) is missing: looked in \(searched.joined(separator: ", ")). "
            + "Copy the \(folder) folder from the build (the folder `swift build -c release --show-bin-path` "
            + "prints) next to the onthemap-bot executable"
    }
}
