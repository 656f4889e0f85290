/// Waiting work taken highest priority first, and in arrival order among equal priorities; a waiting element's
/// priority can be raised. A scan per take: the queues it serves (waiting downloads, waiting decodes) are short.
struct PriorityQueue<Priority: Comparable, Element> {
    private var entries: [(priority: Priority, arrival: Int, element: Element)] = []
    private var arrivals = 0

    var count: Int { entries.count }

    /// The priorities of the waiting elements, in arrival order.
    var priorities: [Priority] { entries.map(\.priority) }

    mutating func append(_ element: Element, priority: Priority) {
        entries.append((priority, arrivals, element))
        arrivals += 1
    }

    /// Removes and returns the element with the highest priority, the earliest among equals.
    mutating func popNext() -> Element? {
        popNextWithPriority()?.element
    }

    /// Removes and returns the element ``popNext()`` would, with its priority.
    mutating func popNextWithPriority() -> (priority: Priority, element: Element)? {
        guard var best = entries.indices.first else { return nil }
        for index in entries.indices.dropFirst() {
            let candidate = entries[index]
            let current = entries[best]
            if candidate.priority > current.priority
                || (candidate.priority == current.priority && candidate.arrival < current.arrival)
            {
                best = index
            }
        }
        let entry = entries.remove(at: best)
        return (entry.priority, entry.element)
    }

    /// Raises the priority of the first element `matches` picks to `priority` (never lowers it); whether it rose.
    @discardableResult
    mutating func raise(to priority: Priority, where matches: (Element) -> Bool) -> Bool {
        guard let index = entries.firstIndex(where: { matches($0.element) }), entries[index].priority < priority else {
            return false
        }
        entries[index].priority = priority
        return true
    }

    /// Removes and returns the first element `matches` picks.
    mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let index = entries.firstIndex(where: { matches($0.element) }) else { return nil }
        return entries.remove(at: index).element
    }

    mutating func removeAll(where matches: (Element) -> Bool) {
        entries.removeAll { matches($0.element) }
    }
}
