/// A dictionary whose entries also form a recency list, most recently used first; every operation is O(1).
///
/// Nodes live in one array and link to each other by index, so moving an entry costs two stores and no
/// allocation. Freed slots are reused. Not thread-safe: ``MemoryStorage/Backend`` keeps it inside its lock.
struct LRUIndex<Value> {
    private struct Node {
        var key: String
        var value: Value?
        var newer: Int
        var older: Int
    }

    private var nodes: [Node] = []
    private var slots: [String: Int] = [:]
    private var freeSlots: [Int] = []
    /// The most recently used node, or -1.
    private var newest = -1
    /// The least recently used node, or -1.
    private var oldest = -1

    var count: Int { slots.count }

    /// The value for `key` without changing its place in the list.
    func peek(_ key: String) -> Value? {
        slots[key].flatMap { nodes[$0].value }
    }

    /// The value for `key`, moved to the front of the list.
    mutating func get(_ key: String) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Moves `key` to the front and lets `body` read and change its value in place, with one hash lookup;
    /// `nil` if absent.
    mutating func withValue<Result>(forKey key: String, _ body: (inout Value) -> Result) -> Result? {
        guard let slot = slots[key], nodes[slot].value != nil else { return nil }
        moveToFront(slot)
        return body(&nodes[slot].value!)
    }

    /// Sets `key`'s value and makes it the most recently used; returns the value it replaced.
    @discardableResult
    mutating func set(_ key: String, _ value: Value) -> Value? {
        if let slot = slots[key] {
            let old = nodes[slot].value
            nodes[slot].value = value
            moveToFront(slot)
            return old
        }
        let node = Node(key: key, value: value, newer: -1, older: -1)
        let slot: Int
        if let free = freeSlots.popLast() {
            nodes[free] = node
            slot = free
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        linkAtFront(slot)
        return nil
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        unlink(slot)
        let value = nodes[slot].value
        nodes[slot].value = nil
        nodes[slot].key = ""
        freeSlots.append(slot)
        return value
    }

    /// Removes and returns the least recently used entry.
    mutating func removeOldest() -> (key: String, value: Value)? {
        guard oldest >= 0, let value = nodes[oldest].value else { return nil }
        let key = nodes[oldest].key
        remove(key)
        return (key, value)
    }

    mutating func removeAll() {
        self = LRUIndex()
    }

    /// Keys and values, most recently used first.
    var entries: [(key: String, value: Value)] {
        var result: [(key: String, value: Value)] = []
        result.reserveCapacity(count)
        var slot = newest
        while slot >= 0 {
            if let value = nodes[slot].value { result.append((nodes[slot].key, value)) }
            slot = nodes[slot].older
        }
        return result
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        nodes[slot].newer = -1
        nodes[slot].older = newest
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }
}
