import Foundation

/// Runs a fuzz check over files (or every file in folders) outside libFuzzer, for regressions.
public enum FuzzInputReplay {
    /// Returns the exit status: 0 when every input passed (a failing check stops the process).
    public static func run(arguments: [String], check: ([UInt8]) -> Void) -> Int32 {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: <fuzzer> FILE|FOLDER…  (replays inputs)\n".utf8))
            return 2
        }
        var count = 0
        for path in arguments {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    return 1
                }
                check([UInt8](data))
                count += 1
            }
        }
        print("\(count) inputs passed")
        return 0
    }

    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [path] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { path + "/" + $0 }
    }
}

/// Stops the process with `message` when `condition` is false, so libFuzzer records the input.
public func fuzzRequire(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz property violated: \(message())") }
}
