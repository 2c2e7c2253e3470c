/// The lexical scanner's states and its failure.
extension LexicalScanner {
    enum Mode: UInt8 {
        case between
        case string
        case escape
        case unicodeHex
        case lowSurrogateBackslash
        case lowSurrogateU
        case utf8
        case number
        case literal
    }

    enum NumberState: UInt8 {
        case sign, zero, integer, dot, fraction, exponent, exponentSign, exponentDigits

        var canEnd: Bool {
            switch self {
            case .zero, .integer, .fraction, .exponentDigits: true
            default: false
            }
        }
    }

    struct Failure: Error {
        var rule: Rule
        var message: String
        /// Absolute offset of the offending byte.
        var offset: Int
        /// Absolute offset of the first byte of the token that holds it (`offset` when the
        /// byte is outside any token). Everything before it is whole tokens as yajl reads
        /// them: for a leading zero that is the `0` too, so this is then after `offset`.
        var tokenStart: Int
    }
}
