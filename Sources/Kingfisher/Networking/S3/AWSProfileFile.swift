import Foundation

/// The sections of an AWS shared `config` or `credentials` file (INI): `[name]` headers, `key = value` lines, and
/// a key with an empty value followed by indented `key = value` lines (a nested section such as `s3 =`), whose
/// keys are read as `s3.key`. Comments start with `#` or `;`.
struct AWSProfileFile: Sendable, Equatable {
    /// Every section by its header's text (`default`, `profile dev`), its keys lowercased.
    var sections: [String: [String: String]] = [:]

    init(parsing text: String) {
        var current: String?
        var nested: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";") else { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                current = name
                nested = nil
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if indented, let parent = nested {
                sections[section]?["\(parent).\(key)"] = value
            } else if value.isEmpty {
                nested = key
            } else {
                nested = nil
                sections[section]?[key] = value
            }
        }
    }

    /// The file at `url`; an empty file when there is none.
    static func read(_ url: URL) throws -> AWSProfileFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return AWSProfileFile(parsing: "") }
        return AWSProfileFile(parsing: try String(contentsOf: url, encoding: .utf8))
    }
}
