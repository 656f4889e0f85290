import ArgumentParser
import KfCommandKit

/// `kf-view`: the terminal view of `kf view`, an executable of its own so that `kf` links nothing of libchafa.
@main
enum KfViewMain {
    static func main() async {
        MemoryTuning.apply(forWindow: true)
        await ViewCommand.main()
    }
}
