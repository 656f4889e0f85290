import Dispatch
import Foundation
import Kingfisher
import KingfisherLocking
import XCTest

/// `CallbackQueue.operationQueue(_:)` with Foundation's `OperationQueue` and with a queue of one's own, and
/// `ExecutionQueue` as Kingfisher's other name for the type.
final class CallbackQueueTests: XCTestCase {
    /// An operation queue of our own: it records each block and runs it later, newest first, when drained.
    private final class NewestFirstQueue: CallbackOperationQueue {
        private let blocks = Locked<[@Sendable () -> Void]>([])

        var count: Int { blocks.withLock { $0.count } }

        func addOperation(_ block: @escaping @Sendable () -> Void) {
            blocks.withLock { $0.append(block) }
        }

        func drainNewestFirst() {
            let pending = blocks.withLock { blocks in
                defer { blocks.removeAll() }
                return blocks
            }
            for block in pending.reversed() { block() }
        }
    }

    func testAnOperationQueueRunsTheBlockOnItsOwnThread() {
        let queue = OperationQueue()
        queue.name = "callback-queue-test"
        queue.maxConcurrentOperationCount = 1
        let ran = expectation(description: "the block ran")
        let seen = Locked<String?>(nil)
        CallbackQueue.operationQueue(queue).execute {
            seen.withLock { $0 = OperationQueue.current?.name }
            ran.fulfill()
        }
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(seen.withLock { $0 }, "callback-queue-test")
    }

    func testACustomOperationQueueDecidesTheOrder() {
        let queue = NewestFirstQueue()
        let order = Locked<[Int]>([])
        let execution: ExecutionQueue = .operationQueue(queue)
        for index in 1...3 { execution.execute { order.withLock { $0.append(index) } } }
        XCTAssertEqual(order.withLock { $0 }, [], "nothing runs until the queue runs it")
        XCTAssertEqual(queue.count, 3)
        queue.drainNewestFirst()
        XCTAssertEqual(order.withLock { $0 }, [3, 2, 1])
        XCTAssertNil(execution.queue, "a custom queue has no dispatch queue")
    }

    func testAnOperationQueueAsProcessingQueueRunsTheDecode() async throws {
        try await withManager { f in
            // Given a processing queue of our own that holds its work until drained
            let queue = NewestFirstQueue()
            let collector = RetrievalCollector()
            f.manager.retrieveImage(
                with: .provider(RawImageDataProvider(data: Fixtures.png(), cacheKey: "queued")),
                options: [.processingQueue(.operationQueue(queue)), .waitForCache], completionHandler: collector.handler
            )
            // Then the decode waits on that queue, and finishes once the queue runs it
            let enqueued = await eventually(timeout: 10) { queue.count == 1 }
            XCTAssertTrue(enqueued)
            XCTAssertTrue(collector.results.isEmpty)
            queue.drainNewestFirst()
            await collector.wait(for: 1)
            XCTAssertEqual(try collector.results[0].get().image.pixelWidth, 64)
        }
    }
}
