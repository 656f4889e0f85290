import Foundation
import KingfisherServer
import Testing

@Suite struct ThumborURLTests {
    @Test func everyOptionInOrder() throws {
        let url = try ThumborURL(
            path: "/unsafe/meta/trim:bottom-right:10/10x20:300x400/fit-in/-300x-200/left/bottom/smart/"
                + "filters:quality(80):fill(red,1):round_corner(20,255,255,255)/http://example.com/a/b.jpg")
        #expect(url.authorisation == .unsafe)
        #expect(url.meta)
        #expect(url.trim == ThumborURL.Trim(corner: .bottomRight, tolerance: 10))
        #expect(url.crop == ThumborURL.Crop(left: 10, top: 20, right: 300, bottom: 400))
        #expect(url.fit == .fitIn)
        #expect(url.width == .pixels(300) && url.height == .pixels(200))
        #expect(url.flipsHorizontally && url.flipsVertically)
        #expect(url.horizontalAlignment == .left && url.verticalAlignment == .bottom)
        #expect(url.smart)
        #expect(
            url.filters == [
                .init(name: "quality", arguments: ["80"]), .init(name: "fill", arguments: ["red", "1"]),
                .init(name: "round_corner", arguments: ["20", "255", "255", "255"]),
            ])
        #expect(url.image == "http://example.com/a/b.jpg")
    }

    @Test func theSimplestURLsAndOmittedSides() throws {
        let plain = try ThumborURL(path: "/unsafe/example.com/a.jpg")
        #expect(plain.image == "example.com/a.jpg" && plain.width == .proportional && plain.filters.isEmpty)
        let tall = try ThumborURL(path: "/unsafe/x200/a.jpg")
        #expect(tall.width == .proportional && tall.height == .pixels(200))
        let original = try ThumborURL(path: "/unsafe/origx0/a.jpg")
        #expect(original.width == .original && original.height == .proportional)
        let adaptive = try ThumborURL(path: "/unsafe/adaptive-fit-in/100x100/a.jpg")
        #expect(adaptive.fit == .adaptiveFitIn)
    }

    @Test func optionsOutOfOrderArePartOfTheImageAsInThumbor() throws {
        // `smart` before the size: from there on it is the image's path
        let url = try ThumborURL(path: "/unsafe/smart/300x200/a.jpg")
        #expect(url.smart && url.width == .proportional)
        let late = try ThumborURL(path: "/unsafe/300x200/fit-in/a.jpg")
        #expect(late.fit == .crop && late.image == "fit-in/a.jpg")
    }

    @Test func anEncodedImageURLIsDecodedAndFilterArgumentsMayHoldSlashes() throws {
        let encoded = try ThumborURL(path: "/unsafe/100x100/http%3A%2F%2Fexample.com%2Fa%20b.jpg")
        #expect(encoded.image == "http://example.com/a b.jpg")
        let watermark = try ThumborURL(
            path: "/unsafe/filters:watermark(http://example.com/w.png,10,10,50)/example.com/a.jpg")
        #expect(
            watermark.filters == [.init(name: "watermark", arguments: ["http://example.com/w.png", "10", "10", "50"])])
        #expect(watermark.image == "example.com/a.jpg")
    }

    @Test(arguments: [
        ("/", ThumborURLError.missingImage),
        ("/unsafe/", .missingImage),
        ("/unsafe/300x200/", .missingImage),
        ("/not-a-signature/a.jpg", .missingSignature),
        ("/unsafe/filters:quality(80/a.jpg", .malformedFilters("quality(80/a.jpg")),
        ("/unsafe/filters:quality(80)):x()/a.jpg", .malformedFilters("quality(80)):x()")),
        ("/unsafe/filters:(80)/a.jpg", .malformedFilters("(80)")),
        ("/unsafe/trim:middle/a.jpg", .badTrim("trim:middle")),
        ("/unsafe/9999999x1/a.jpg", .badSize("9999999x1")),
    ])
    func malformedURLsSayWhy(path: String, error: ThumborURLError) {
        #expect(throws: error) { try ThumborURL(path: path) }
    }

    @Test func signaturesMatchThumborsAndTamperingIsRefused() throws {
        // Signatures computed with Python's hmac and base64 modules, as libthumbor does
        #expect(
            ThumborSignature.sign("300x200/smart/path/to/image.jpg", key: "MY_SECURE_KEY")
                == "3ZAFIB9OK_j_R10MafCdhFO99mE=")
        let path = "fit-in/256x256/filters:quality(80):format(webp)/http://127.0.0.1:8080/a.jpg"
        #expect(ThumborSignature.sign(path, key: "secret") == "588S7-qDW306fzz0To7bJsIrwrM=")
        let signed = try ThumborURL(path: "/588S7-qDW306fzz0To7bJsIrwrM=/" + path)
        #expect(ThumborSignature.isValid(signed, key: "secret"))
        #expect(!ThumborSignature.isValid(signed, key: "other"))
        let tampered = try ThumborURL(
            path: "/588S7-qDW306fzz0To7bJsIrwrM=/" + path.replacingOccurrences(of: "80", with: "90"))
        #expect(!ThumborSignature.isValid(tampered, key: "secret"))
        #expect(!ThumborSignature.isValid(try ThumborURL(path: "/unsafe/" + path), key: "secret"))
    }
}
