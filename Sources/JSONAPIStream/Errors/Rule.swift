/// A stable identifier for every check the library makes.
///
/// - `J00`–`J12`: JSON-level checks (`J00` is plain RFC 8259 syntax; `J01`–`J12` are the
///   checks this library adds on top of yajl 2.1.0).
/// - `R01`–`R41`: JSON:API 1.1 MUST rules that one document can show.
/// - `C01`–`C03`: rules for request documents (create, update, relationship update).
/// - `A01`–`A09`: the Atomic Operations extension's rules (<https://jsonapi.org/ext/atomic>),
///   checked when a document applies it (its `jsonapi.ext`, or the `atomic` namespace given
///   in ``DocumentOptions/extensions``).
/// - `N01`–`N04`: what the normalizer itself reports (merges, keys it cannot build).
///
/// The identifiers never change meaning between releases; see `Corpus/invalid/` for a
/// failing document and a valid near miss per rule.
public enum Rule: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case J00, J01, J02, J03, J04, J05, J06, J07, J08, J09, J10, J11, J12
    case R01, R02, R03, R04, R05, R06, R07, R08, R09, R10
    case R11, R12, R13, R14, R15, R16, R17, R18, R19, R20
    case R21, R22, R23, R24, R25, R26, R27, R28, R29, R30
    case R31, R32, R33, R34, R35, R36, R37, R38, R39, R40, R41
    case C01, C02, C03
    case A01, A02, A03, A04, A05, A06, A07, A08, A09
    case N01, N02, N03, N04

    public var description: String { rawValue }

    public static func < (lhs: Rule, rhs: Rule) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether this is a JSON-level rule (always an error, in every mode).
    public var isJSONRule: Bool { rawValue.hasPrefix("J") }

    /// One line saying what the rule requires, in the spec's words where it has them.
    public var summary: String {
        switch self {
        case .J00: "JSON text MUST follow RFC 8259 syntax"
        case .J01: "whitespace outside strings MUST be space, tab, line feed or carriage return"
        case .J02: "text MUST be well-formed UTF-8 (RFC 3629)"
        case .J03: "\\u escapes MUST pair surrogates"
        case .J04: "numbers are kept as their exact source text"
        case .J05: "nesting depth limit"
        case .J06: "token length limit"
        case .J07: "input is fed to the parser at token boundaries"
        case .J08: "error positions are absolute"
        case .J09: "input MUST NOT end inside a value"
        case .J10: "byte order mark"
        case .J11: "member names MUST be unique within an object"
        case .J12: "document limits; a JSON:API document MUST be a JSON object"
        case .R01: "the root value MUST be a JSON object"
        case .R02: "a document MUST contain at least one of data, errors, meta"
        case .R03: "data and errors MUST NOT coexist"
        case .R04: "included MUST NOT be present without data"
        case .R05: "a document MUST NOT contain other top-level members"
        case .R06: "primary data MUST be null, a resource object, a resource identifier object, or an array of them"
        case .R07: "included MUST be an array of resource objects"
        case .R08: "errors MUST be an array of error objects"
        case .R09: "a resource object MUST contain type"
        case .R10: "a resource object MUST contain id (except a new resource in a request)"
        case .R11: "id, type and lid MUST be strings"
        case .R12: "type MUST be a valid member name"
        case .R13: "a resource identifier object MUST contain type and id (or lid)"
        case .R14: "a resource object MUST NOT contain other members"
        case .R15: "attributes MUST be an object"
        case .R16: "relationships MUST be an object of relationship objects"
        case .R17: "fields share one namespace and MUST NOT be named type or id"
        case .R18: "a relationship object MUST contain at least one of links, data, meta"
        case .R19: "relationship links MUST contain self or related"
        case .R20: "resource linkage MUST be null, [], an identifier or an array of identifiers"
        case .R21: "a relationship object MUST NOT contain other members"
        case .R22: "a compound document MUST NOT include more than one resource object per type and id"
        case .R23: "included resources MUST be reachable from primary data (full linkage)"
        case .R24: "meta MUST be an object"
        case .R25: "links MUST be an object"
        case .R26: "a link MUST be a string, a link object or null"
        case .R27: "a link MUST be a URI-reference"
        case .R28: "a link object MUST contain href"
        case .R29: "link object members MUST be valid"
        case .R30: "jsonapi MUST be an object with valid members"
        case .R31: "an error object MUST contain at least one member"
        case .R32: "an error object MUST NOT contain other members"
        case .R33: "error status, code, title, detail MUST be strings"
        case .R34: "error source MUST be an object with pointer, parameter or header strings"
        case .R35: "error links MAY contain only about and type links"
        case .R36: "member names are case-sensitive"
        case .R37: "member names MUST contain at least one character"
        case .R38: "member names MUST contain only allowed characters"
        case .R39: "member names MUST start and end with a globally allowed character"
        case .R40: "@ is allowed only as the first character of a member name"
        case .R41: "extension members MUST belong to an applied extension"
        case .C01: "a create request MUST send one resource object with type"
        case .C02: "an update request MUST send one resource object with type and id"
        case .C03: "a relationship update MUST send null, an identifier or an array of identifiers"
        case .A01: "a document with atomic:operations or atomic:results MUST NOT contain data or included"
        case .A02: "a document MUST NOT contain both atomic:operations and atomic:results"
        case .A03: "a document with atomic:operations or atomic:results MUST NOT contain errors"
        case .A04: "atomic:operations MUST be an array of operation objects"
        case .A05: "an operation MUST contain op, one of add, update or remove"
        case .A06: "an operation MUST NOT contain both ref and href, and href MUST be a string"
        case .A07: "ref MUST be an object with type and id or lid, and relationship a string"
        case .A08: "an operation's data MUST fit its op and target"
        case .A09: "atomic:results MUST be an array of result objects, whose data is a resource object or null"
        case .N01: "the same resource appeared more than once; members were merged"
        case .N02: "a byte order mark was stripped"
        case .N03: "a resource cannot be keyed"
        case .N04: "a member name collides with one the output adds or another after key formatting"
        }
    }
}
