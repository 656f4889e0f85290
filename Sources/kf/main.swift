import Kingfisher

// The full command line arrives with its own issue; for now `kf` reports what it runs on.
let decodable = ImageFormat.allCases.filter(ImageEngine.canDecode).map { "\($0)" }
print("kf \(KingfisherVersion.string)")
print("libvips \(ImageEngine.libvipsVersion)")
print("decodes: \(decodable.joined(separator: ", "))")
