package import Foundation

/// Before each default cache had a folder of its own, `kf fetch` kept its files straight in kf's home
/// (`~/.cache/kf`), where `kf serve`'s folder then made it refuse the directory. The first run that uses the default
/// cache moves such files into their new folder, so nothing cached is lost and the home holds only folders.
package enum LegacyCacheHome {
    /// Moves the cache files (and kept partial downloads) lying straight in `home` into `directory`. A file is
    /// linked into its new place (which fails, instead of replacing, when another run stored one there meanwhile),
    /// then unlinked from the old: the same file, its checksum attribute with it.
    package static func moveFiles(from home: URL, into directory: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: home.path) else { return }
        let moved = names.filter { name in
            CacheOptions.isCacheFileName(name) && !name.hasPrefix(".kf-tmp-")
                || name == CacheOptions.partialDownloadsName
        }
        guard !moved.isEmpty else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in moved {
            let old = home.appendingPathComponent(name).path
            let target = directory.appendingPathComponent(name).path
            if name == CacheOptions.partialDownloadsName {
                _ = rename(old, target)  // a directory: rename never replaces a non-empty one
            } else if link(old, target) == 0 || errno == EEXIST {
                unlink(old)  // moved, or a newer file is there already: the old one goes either way
            }
        }
    }
}
