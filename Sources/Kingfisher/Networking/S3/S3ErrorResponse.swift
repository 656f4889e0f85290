import Foundation

/// What an S3-compatible store says in the XML body of a refusal:
/// `<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>...</Error>`.
struct S3ErrorResponse: Sendable, Equatable {
    let code: String
    let message: String

    /// `nil` when `body` has no `<Code>` inside an `<Error>`.
    init?(body: Data) {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        guard text.contains("<Error>"), let code = Self.text(of: "Code", in: text), !code.isEmpty else { return nil }
        self.code = code
        self.message = Self.text(of: "Message", in: text) ?? ""
    }

    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The text of the first `<name>` element, its five XML entities decoded.
    private static func text(of name: String, in xml: String) -> String? {
        guard let open = xml.range(of: "<\(name)>"),
            let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex)
        else { return nil }
        return String(xml[open.upperBound..<close.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
