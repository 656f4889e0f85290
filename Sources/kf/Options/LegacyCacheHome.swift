import Foundation

/// Before each default cache had a folder of its own, `kf fetch` kept its files straight in kf's home
/// (`~/.cache/kf`), where `kf serve`'s folder then made it refuse the directory. The first run that uses the default
/// cache moves such files into their new folder, so nothing cached is lost and the home holds only folders.
enum LegacyCacheHome {
    /// Moves the cache files (and kept partial downloads) lying straight in `home` into `directory`. Renames within
    /// one file system keep each file's checksum attribute; a file another run moved first is skipped.
    static func moveFiles(from home: URL, into directory: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: home.path) else { return }
        let moved = names.filter { name in
            CacheOptions.isCacheFileName(name) && !name.hasPrefix(".kf-tmp-")
                || name == CacheOptions.partialDownloadsName
        }
        guard !moved.isEmpty else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in moved {
            let target = directory.appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: target.path) else { continue }
            _ = rename(home.appendingPathComponent(name).path, target.path)
        }
    }
}
