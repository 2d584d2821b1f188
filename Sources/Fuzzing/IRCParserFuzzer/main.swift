// The IRC parser fuzz target. `scripts/fuzz parser 600` builds it with libFuzzer (`-DFUZZING`);
// a plain build replays files through the same checks instead:
// `swift run IRCParserFuzzer Fuzz/corpus/irc-parser Fuzz/regressions/irc-parser`.
import Foundation
import FuzzingSupport

#if FUZZING
    /// libFuzzer's per-input entry point (its `main` refers to it by this name).
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        ParserProperties.check(fuzzInputBytes(data, size))
        return 0
    }

    exit(runLibFuzzer(fuzzOneInput))
#else
    exit(
        FuzzInputReplay.run(
            arguments: Array(CommandLine.arguments.dropFirst()), check: ParserProperties.check))
#endif
