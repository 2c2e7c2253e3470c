// Foundation's `DateFormatter` as a format of JSONAPIStream's date strategies. JSONAPIStream
// itself needs only FoundationEssentials (no ICU, 6 MiB fewer resident pages in every process
// that links it); `DateFormatter` is in Foundation, so its conformance is here, in a
// module of its own. (`ISO8601DateFormatter` is not `Sendable`; `.iso8601` reads those dates.)
import Foundation
@_exported import JSONAPIStream

extension DateFormatter: DateTextFormat {
    /// The formatter's `dateFormat`.
    public var formatDescription: String { dateFormat ?? "" }
}
