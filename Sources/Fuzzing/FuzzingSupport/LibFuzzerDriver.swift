#if FUZZING
    /// libFuzzer's entry point for programs that keep their own `main` (SwiftPM renames the
    /// executable's `main`, so libFuzzer's own one would never run).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// Runs libFuzzer with the process's arguments; `callback` gets each input (return 0).
    public func runLibFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        return runFuzzerDriver(&argc, &argv, callback)
    }
#endif

/// The input bytes libFuzzer passes (a null pointer for the empty input).
public func fuzzInputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
