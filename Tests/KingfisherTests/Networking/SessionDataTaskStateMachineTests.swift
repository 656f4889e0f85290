import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

/// The shared HTTP task's state machine, event by event: callers handed to processing can still leave, and the
/// decode of a group stops when its last caller left.
@Suite struct SessionDataTaskStateMachineTests {
    private typealias Machine = SessionDataTask.StateMachine

    private func waiter() -> DownloadWaiter {
        DownloadWaiter(
            url: URL(string: "http://127.0.0.1/a.png")!, options: KingfisherParsedOptionsInfo(nil), progressBlock: nil,
            handle: DownloadTask(), decoder: DecodeStage(threads: 1), resume: { _ in })
    }

    private func text(_ stop: Machine.Stop?) -> String {
        switch stop {
        case nil: "none"
        case .dequeue: "dequeue"
        case .cancelFetch: "cancelFetch"
        case .stopDecode: "stopDecode"
        }
    }

    @Test func aFetchThatReachedItsBodyBeforeItWasRecordedGoesOn() {
        // On a busy machine the fetch task can run to its body before the thread that started it records it.
        var machine = Machine()
        _ = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        _ = machine.complete(acceptingLateCallers: true)
        let fetch = Task<Void, Never> {}
        let kept = machine.attachFetch(fetch)
        #expect(kept, "a fetch in its processing must not be cancelled")
        // Every waiter gone before the record: the fetch is cancelled.
        var left = Machine()
        let token = left.add(waiter())!
        _ = left.begin()
        _ = left.cancel(token: token)
        let cancelled = !left.attachFetch(fetch)
        #expect(cancelled)
    }

    @Test func aCallerLeavingWhileTheBodyIsProcessedIsHandedBackAtOnce() {
        var machine = Machine()
        let a = machine.add(waiter())!
        let b = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        let handed = machine.complete(acceptingLateCallers: true)
        #expect(handed.map(\.token) == [a, b])
        let (left, stop) = machine.cancel(token: a)
        #expect(left === handed[0].waiter)
        #expect(text(stop) == "none")
        // A token nobody holds any more changes nothing.
        let again = machine.cancel(token: a)
        #expect(again.waiter == nil)
    }

    @Test func theDecodeStopsWhenTheLastCallerOfItsGroupLeaves() {
        var machine = Machine()
        let a = machine.add(waiter())!
        let b = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        _ = machine.complete(acceptingLateCallers: true)
        let stopped = Locked(0)
        let decoding = machine.beginDecode(for: [a, b]) { stopped.withLock { $0 += 1 } }
        #expect(decoding)
        let firstLeft = machine.cancel(token: a)
        #expect(text(firstLeft.stop) == "none")
        let (_, stop) = machine.cancel(token: b)
        #expect(text(stop) == "stopDecode")
        if case .stopDecode(let action) = stop { action() }
        #expect(stopped.withLock { $0 } == 1)
    }

    @Test func aGroupWhoseCallersAllLeftBeforeItsDecodeIsNotDecoded() {
        var machine = Machine()
        let a = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        _ = machine.complete(acceptingLateCallers: true)
        _ = machine.cancel(token: a)
        let decoding = machine.beginDecode(for: [a]) {}
        #expect(!decoding)
    }

    @Test func delivering() {
        var machine = Machine()
        let a = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        _ = machine.complete(acceptingLateCallers: true)
        let decoding = machine.beginDecode(for: [a]) {}
        #expect(decoding)
        machine.endDecode(delivering: [a])
        // Delivered: its cancel now finds nothing to hand back and nothing to stop.
        let (left, stop) = machine.cancel(token: a)
        #expect(left == nil && text(stop) == "none")
    }

    @Test func cancellingEverythingStopsTheDecodeAndHandsBackEveryCaller() {
        var machine = Machine()
        let a = machine.add(waiter())!
        let began = machine.begin()
        #expect(began)
        _ = machine.complete(acceptingLateCallers: true)
        let b = machine.add(waiter())!
        let decoding = machine.beginDecode(for: [a]) {}
        #expect(decoding)
        let (removed, stop) = machine.cancelAll()
        #expect(Set(removed.map(\.token)) == [a, b])
        #expect(text(stop) == "stopDecode")
    }
}
