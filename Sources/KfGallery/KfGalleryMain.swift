import ArgumentParser
import KfCommandKit

/// `kf-gallery`: the GTK 4 window of `kf gallery`, an executable of its own so that `kf` links nothing of GTK.
@main
enum KfGalleryMain {
    static func main() {
        MemoryTuning.apply(forWindow: true)
        GalleryCommand.main()
    }
}
