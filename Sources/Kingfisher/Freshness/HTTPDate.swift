import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate every server sends today (`Sun, 06 Nov 1994 08:49:37 GMT`), and
/// the two obsolete forms a recipient must still read (`Sunday, 06-Nov-94 08:49:37 GMT`, and asctime's
/// `Sun Nov  6 08:49:37 1994`). Anything else is `nil`, which the freshness rules treat as a time in the past.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { " ,-:\t".contains($0) }).map(String.init)
        guard let monthIndex = tokens.firstIndex(where: { month(named: $0) != nil }),
            let month = month(named: tokens[monthIndex])
        else { return nil }
        var day: Int?
        var year: Int?
        var clock: [Int] = []
        if monthIndex > 0, let number = Int(tokens[monthIndex - 1]) {
            // IMF-fixdate and RFC 850: day month year hh mm ss GMT
            day = number
            year = tokens.count > monthIndex + 1 ? Int(tokens[monthIndex + 1]) : nil
            clock = tokens.dropFirst(monthIndex + 2).prefix(3).compactMap { Int($0) }
            guard tokens.count > monthIndex + 5, tokens[monthIndex + 5] == "GMT" else { return nil }
        } else {
            // asctime: month day hh mm ss year
            day = tokens.count > monthIndex + 1 ? Int(tokens[monthIndex + 1]) : nil
            clock = tokens.dropFirst(monthIndex + 2).prefix(3).compactMap { Int($0) }
            year = tokens.count > monthIndex + 5 ? Int(tokens[monthIndex + 5]) : nil
        }
        guard var year, let day, clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]),
            (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        if year < 100 { year += year < 70 ? 2000 : 1900 }
        guard (1601...9999).contains(year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The IMF-fixdate of `date`, as sent in `If-Modified-Since`.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let monthName = monthNames[month - 1].capitalized
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(monthName) \(year) \(two(secondOfDay / 3600)):"
            + "\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    private static func month(named name: String) -> Int? {
        guard name.count == 3 else { return nil }
        return monthNames.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
