/// A first argument that names no subcommand, with the one it was probably meant to be (`kf fecth` → fetch):
/// ArgumentParser would read it as a stray argument and say only "unexpected arguments".
struct UnknownSubcommand {
    let given: String
    let suggestion: String?
    let known: [String]

    /// `nil` when `arguments` starts with a subcommand or an option, or is empty.
    init?(arguments: [String], known: [String]) {
        guard let first = arguments.first, !first.hasPrefix("-"), !known.contains(first) else { return nil }
        given = first
        self.known = known
        let distances = known.map { (name: $0, distance: Self.editDistance(first.lowercased(), $0)) }
        let closest = distances.min { $0.distance < $1.distance }
        suggestion = closest.flatMap { $0.distance <= max(1, $0.name.count / 3) ? $0.name : nil }
    }

    var message: String {
        let hint = suggestion.map { " Did you mean '\($0)'?" } ?? ""
        return "Error: '\(given)' is not a kf command.\(hint)\n  The commands are \(known.joined(separator: ", ")); "
            + "see 'kf --help'."
    }

    /// Levenshtein distance, a transposition counting once (`fecth` is one step from `fetch`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, rows[i - 2][j - 2] + 1) }
                rows[i][j] = best
            }
        }
        return rows[a.count][b.count]
    }
}
