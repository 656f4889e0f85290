import Testing

@testable import Kingfisher

@Suite struct PriorityQueueTests {
    @Test func highestPriorityFirstArrivalOrderAmongEqualsAndRaisedPrioritiesCount() {
        var queue = PriorityQueue<Int, String>()
        for (name, priority) in [("a", 1), ("b", 2), ("c", 1), ("d", 2), ("e", 0)] {
            queue.append(name, priority: priority)
        }
        #expect(queue.priorities == [1, 2, 1, 2, 0])
        queue.raise(to: 3) { $0 == "c" }
        queue.raise(to: 0) { $0 == "d" }  // never lowers
        queue.removeAll { $0 == "a" }
        var order: [String] = []
        while let next = queue.popNext() { order.append(next) }
        #expect(order == ["c", "b", "d", "e"])
        #expect(queue.count == 0)
    }
}
