import Kingfisher
import XCTest

final class DelegateTests: XCTestCase {
    private final class Owner {
        var seen: [Int] = []
    }

    func testCallRunsTheBlockWithItsTargetAndReturnsItsOutput() {
        let owner = Owner()
        let onValue = Delegate<Int, String>()
        XCTAssertFalse(onValue.isSet)
        XCTAssertNil(onValue.call(1), "no block: nil")
        onValue.delegate(on: owner) { owner, value in
            owner.seen.append(value)
            return "got \(value)"
        }
        XCTAssertTrue(onValue.isSet)
        XCTAssertEqual(onValue(2), "got 2")
        XCTAssertEqual(onValue.call(3), "got 3")
        XCTAssertEqual(owner.seen, [2, 3])
    }

    func testTheTargetIsHeldWeakly() {
        var owner: Owner? = Owner()
        weak let weakOwner = owner
        let onValue = Delegate<Int, Int>()
        onValue.delegate(on: owner!) { _, value in value * 2 }
        XCTAssertEqual(onValue(4), 8)
        owner = nil
        XCTAssertNil(weakOwner, "the delegate must not keep its target alive")
        XCTAssertNil(onValue(4), "a gone target skips the block")
    }

    func testNilRemovesTheBlockAndVoidInputNeedsNoArgument() {
        let owner = Owner()
        let onDone = Delegate<Void, Int>()
        onDone.delegate(on: owner) { _, _ in 7 }
        XCTAssertEqual(onDone(), 7)
        XCTAssertEqual(onDone.call(), 7)
        onDone.delegate(on: owner, block: nil as (@Sendable (Owner, Void) -> Int)?)
        XCTAssertNil(onDone())
    }

    /// A block written in main-actor code (a view controller, top-level code) is `@Sendable`, not isolated to the
    /// main actor, so calling it from another thread (where previews and download callbacks run) does not trap.
    @MainActor
    func testABlockWrittenOnTheMainActorRunsOnAnyThread() async {
        let owner = Owner()
        let doubled = Delegate<Int, Int>()
        doubled.delegate(on: owner) { _, value in value * 2 }
        let result = await Task.detached { doubled.call(21) }.value
        XCTAssertEqual(result, 42)
    }

    func testOptionalOutputIsFlattened() {
        let owner = Owner()
        let modifier = Delegate<Int, Int?>()
        let none: Int? = modifier(1)
        XCTAssertNil(none)
        modifier.delegate(on: owner) { _, value in value > 0 ? value : nil }
        let kept: Int? = modifier(5)
        let dropped: Int? = modifier(-5)
        XCTAssertEqual(kept, 5)
        XCTAssertNil(dropped)
    }

    func testAsyncBlockRunsThroughCallAsync() async {
        let owner = Owner()
        let onValue = Delegate<Int, Int>()
        onValue.delegate(on: owner) { (_, value) async -> Int in
            await Task.yield()
            return value + 1
        }
        let result = await onValue.callAsync(1)
        XCTAssertEqual(result, 2)
        XCTAssertNil(onValue.call(1), "an async block is not reachable synchronously")
    }
}
