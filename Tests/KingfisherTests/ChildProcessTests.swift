import Foundation
import Testing

@testable import Kingfisher

@Suite("Child processes")
struct ChildProcessTests {
    @Test("cancelling the calling task terminates the child", .timeLimit(.minutes(1)))
    func cancelTerminates() async throws {
        // A child that would outlive the test's time limit by far: the run can only end because it was stopped.
        let child = ChildProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["3600"], timeout: 3600)
        let task = Task { try await child.run() }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("sleep 3600 finished")
            return
        }
        #expect(error is CancellationError)
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
