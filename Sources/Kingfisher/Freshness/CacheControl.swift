import Foundation

/// The `Cache-Control` directives of a response that a private cache of images acts on (RFC 9111 §5.2.2).
///
/// Directive names are case-insensitive; a value may be a token or a quoted string. A delta-seconds value that is
/// not a non-negative integer is invalid, and so is a directive given twice with different values: RFC 9111
/// lets a cache take either the first value or treat the response as stale, and this takes the safe side. An
/// invalid `max-age` makes the response stale at once; an invalid `stale-while-revalidate` or `stale-if-error`
/// grants nothing. So no header, however garbled, makes an entry fresh for longer than it says.
struct CacheControl: Sendable, Hashable, Codable {
    /// What `max-age` says: absent, a lifetime in seconds, or present but unusable.
    enum Lifetime: Sendable, Hashable, Codable {
        case absent
        case seconds(Int)
        case invalid
    }

    var maxAge: Lifetime = .absent
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var immutable = false
    /// Seconds after going stale during which the entry may be served while it is revalidated in the background.
    var staleWhileRevalidate: Int?
    /// Seconds after going stale during which the entry may be served when the origin fails.
    var staleIfError: Int?

    init() {}

    /// Parses every `Cache-Control` field value of a response (joined with commas, as they arrive).
    init(_ header: String?) {
        guard let header else { return }
        var values: [String: [String?]] = [:]
        for directive in Self.directives(in: header) {
            values[directive.name, default: []].append(directive.value)
        }
        func seconds(_ name: String) -> Lifetime {
            guard let given = values[name] else { return .absent }
            let distinct = Set(given.map { $0 ?? "" })
            guard distinct.count == 1, let text = distinct.first, !text.isEmpty,
                text.allSatisfy({ $0.isASCII && $0.isNumber })
            else { return .invalid }
            // Larger than any clock: RFC 9111 says to send 2^31 for such values; it is a year-2038 lifetime.
            return .seconds(Int(text) ?? Int(Int32.max))
        }
        maxAge = seconds("max-age")
        noStore = values["no-store"] != nil
        // `no-cache="field"` limits the directive to fields; for an image body it means the same: revalidate.
        noCache = values["no-cache"] != nil
        mustRevalidate = values["must-revalidate"] != nil || values["proxy-revalidate"] != nil
        immutable = values["immutable"] != nil
        if case .seconds(let window) = seconds("stale-while-revalidate") { staleWhileRevalidate = window }
        if case .seconds(let window) = seconds("stale-if-error") { staleIfError = window }
    }

    /// The directives as lower-cased names and unquoted values, split at commas outside quoted strings.
    private static func directives(in header: String) -> [(name: String, value: String?)] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in header {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.compactMap { part in
            let pieces = part.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { return nil }
            return (name, pieces.count > 1 ? pieces[1] : nil)
        }
    }
}
