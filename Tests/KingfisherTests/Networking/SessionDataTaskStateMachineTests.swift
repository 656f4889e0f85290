import Foundation
import Testing

@testable import Kingfisher

/// The shared HTTP task's state machine, event by event: queued, fetching, ended (cancelled or not), and the
/// progress of its body. Who waits for it is the downloader's shared work.
@Suite struct SessionDataTaskStateMachineTests {
    private typealias Machine = SessionDataTask.StateMachine

    @Test func aTaskEndsOnceAndItsFirstEndStands() {
        var machine = Machine()
        #expect(machine.phase == .queued)
        let began = machine.begin()
        #expect(began && machine.phase == .running)
        machine.end(cancelled: false)
        machine.end(cancelled: true)
        #expect(machine.phase == .ended(cancelled: false) && !machine.wasCancelled)
        // An ended task does not begin again.
        let again = machine.begin()
        #expect(!again)
    }

    @Test func aTaskEveryCallerLeftWhileQueuedIsCancelledWithoutBeginning() {
        var machine = Machine()
        machine.end(cancelled: true)
        #expect(machine.wasCancelled)
        let began = machine.begin()
        #expect(!began)
    }

    @Test func progressIsRecorded() {
        var machine = Machine()
        #expect(machine.received == 0 && machine.expected == -1)
        machine.progress(received: 10, expected: 100)
        #expect(machine.received == 10 && machine.expected == 100)
    }
}
