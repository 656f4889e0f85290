import Foundation
import Testing

@testable import Kingfisher

@Suite("Child processes")
struct ChildProcessTests {
    @Test("cancelling the calling task terminates the child")
    func cancelTerminates() async throws {
        let child = ChildProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"], timeout: 60)
        let started = ContinuousClock.now
        let task = Task { try await child.run() }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("sleep 30 finished")
            return
        }
        #expect(error is CancellationError)
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("the timeout terminates the child and says so")
    func timeout() async throws {
        let outcome = try await ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"], timeout: 0.3
        ).run()
        #expect(outcome.timedOut)
        #expect(outcome.status != 0)
    }
}
