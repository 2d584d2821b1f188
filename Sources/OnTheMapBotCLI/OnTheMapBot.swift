import OnTheMapApp

/// The `onthemap-bot` executable: all of it lives in `OnTheMapApp` so that it can be tested.
@main
enum OnTheMapBot {
    static func main() async {
        await OnTheMapCommand.main(nil)
    }
}
