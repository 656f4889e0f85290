import Foundation

extension ImageCache {
    /// The unexpired disk file of a Live Photo resource stored under `processorIdentifier`, else `nil`. A resource
    /// of unknown type (`.other("")`) is looked for as `.heic`, then `.mov`: the extensions its bytes can be stored
    /// with.
    func livePhotoFileURLIfOnDisk(for resource: LivePhotoResource, processorIdentifier: String) -> URL? {
        let key = resource.cacheKey
        let known = resource.referenceFileType.fileExtension
        let candidates = known.isEmpty ? ["heic", "mov"] : [known]
        for candidate in candidates {
            if let url = cacheFileURLIfOnDisk(
                forKey: key, processorIdentifier: processorIdentifier, forcedExtension: candidate)
            {
                return url
            }
        }
        return nil
    }
}
