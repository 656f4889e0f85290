import Foundation
import Kingfisher
import KingfisherLocking
import XCTest

/// `Base64ImageDataProvider` and `RawImageDataProvider` answer `data(handler:)` synchronously, as in Kingfisher:
/// the handler has run when the call returns.
final class InMemoryImageDataProviderTests: XCTestCase {
    private func synchronousResult(of provider: any ImageDataProvider) -> Result<Data, any Error>? {
        let result = Locked<Result<Data, any Error>?>(nil)
        provider.data { value in result.withLock { $0 = value } }
        return result.withLock { $0 }
    }

    func testRawDataIsHandedOverBeforeTheCallReturns() throws {
        let png = Fixtures.png()
        let result = synchronousResult(of: RawImageDataProvider(data: png, cacheKey: "raw"))
        XCTAssertEqual(try XCTUnwrap(result).get(), png)
    }

    func testBase64IsDecodedBeforeTheCallReturns() throws {
        let png = Fixtures.png()
        let provider = Base64ImageDataProvider(base64String: png.base64EncodedString(), cacheKey: "b64")
        let result = synchronousResult(of: provider)
        XCTAssertEqual(try XCTUnwrap(result).get(), png)
    }

    func testInvalidBase64FailsBeforeTheCallReturnsInsteadOfCrashing() throws {
        let result = try XCTUnwrap(synchronousResult(of: Base64ImageDataProvider(base64String: "!!!", cacheKey: "bad")))
        guard case .failure(let error) = result,
            case .imageSettingError(reason: .dataProviderError(_, let cause)) = error as? KingfisherError
        else {
            XCTFail("expected a dataProviderError, got \(result)")
            return
        }
        XCTAssertTrue(cause is Base64DecodingError)
    }
}
