/// Checks the values the builder stores without interpreting (meta, links, `jsonapi`,
/// errors) against R19 and R24–R35 while they stream by, so that each finding has the
/// exact position and JSON pointer of the offending token.
///
/// It sees the raw events of one stored value at a time: ``begin(_:)`` says what the
/// value should be (``Schema``); each member name sets what its value should be
/// (``Expect``); containers push a ``Node`` saying how to read their members. All state is
/// trivial (no `String`s, no reference counting): this runs for every link of every resource.
/// What it finds goes to a ``RuleReporter`` (the builder, which knows the mode and the
/// position).
struct ValueChecker: ~Copyable {
    enum LinksOwner: UInt8 { case document, resource, relationship, error, linkObject }

    enum Schema {
        case meta, jsonapi, errors
        case links(LinksOwner)
    }

    enum Expect: Equatable {
        case anything
        case metaObject
        case linksObject(LinksOwner)
        case link
        case href
        case relationType
        case plainString(Rule, StaticString)
        case hreflang
        case hreflangString
        case jsonapiObject
        case uriArray(StaticString)
        case uriString(StaticString)
        case errorsArray
        case errorObject
        case errorSource
        case sourcePointer

        static func == (a: Expect, b: Expect) -> Bool {
            switch (a, b) {
            case (.anything, .anything), (.metaObject, .metaObject), (.link, .link), (.href, .href),
                (.relationType, .relationType), (.hreflang, .hreflang), (.hreflangString, .hreflangString),
                (.jsonapiObject, .jsonapiObject), (.errorsArray, .errorsArray), (.errorObject, .errorObject),
                (.errorSource, .errorSource), (.sourcePointer, .sourcePointer):
                return true
            case (.linksObject(let x), .linksObject(let y)): return x == y
            case (.plainString(let r, _), .plainString(let s, _)): return r == s
            case (.uriArray, .uriArray), (.uriString, .uriString): return true
            default: return false
            }
        }
    }

    enum Node {
        case skip
        case meta
        case links(LinksOwner, sawSelfOrRelated: Bool)
        case linkObject(sawHref: Bool)
        case hreflangArray
        case jsonapi
        case uriArray(StaticString)
        case errors
        case error(members: Int32)
        case source
    }

    var expect = Expect.anything
    var stack = UnsafeStack<Node>(capacity: 16)
    /// Depth inside a skipped subtree.
    var skipDepth = 0
    var extensions: Set<String> = []
    /// Check custom link names (strict mode only).
    var strictNames = false

    init() {}

    mutating func begin(_ schema: Schema) {
        stack.removeAll()
        skipDepth = 0
        switch schema {
        case .meta: expect = .metaObject
        case .jsonapi: expect = .jsonapiObject
        case .errors: expect = .errorsArray
        case .links(let owner): expect = .linksObject(owner)
        }
    }

    // MARK: - Values

    enum ScalarKind { case number, bool, null }

    mutating func startObject(reporter: some RuleReporter) -> Bool {
        if skipDepth > 0 { skipDepth += 1; return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: return pushSkip()
        case .metaObject: stack.push(.meta); return true
        case .linksObject(let owner): stack.push(.links(owner, sawSelfOrRelated: false)); return true
        case .link: stack.push(.linkObject(sawHref: false)); return true
        case .jsonapiObject: stack.push(.jsonapi); return true
        case .errorObject: stack.push(.error(members: 0)); return true
        case .errorSource: stack.push(.source); return true
        default:
            _ = pushSkip()
            return wrongValue(e, found: "an object", reporter)
        }
    }

    mutating func startArray(reporter: some RuleReporter) -> Bool {
        if skipDepth > 0 { skipDepth += 1; return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: return pushSkip()
        case .errorsArray: stack.push(.errors); expect = .errorObject; return true
        case .hreflang: stack.push(.hreflangArray); expect = .hreflangString; return true
        case .uriArray(let name): stack.push(.uriArray(name)); expect = .uriString(name); return true
        default:
            _ = pushSkip()
            return wrongValue(e, found: "an array", reporter)
        }
    }

    mutating func endContainer(reporter: some RuleReporter) -> Bool {
        if skipDepth > 1 { skipDepth -= 1; return true }
        if skipDepth == 1 {
            skipDepth = 0
            stack.pop()
            return afterValue()
        }
        guard !stack.isEmpty else { return true }
        let node = stack.pop()
        switch node {
        case .links(.relationship, let saw) where !saw:
            if !reporter.report(.R19, "relationship links MUST contain self or related", at: .container) { return false }
        case .linkObject(let sawHref) where !sawHref:
            if !reporter.report(.R28, "a link object MUST contain href", at: .container) { return false }
        case .error(let members) where members == 0:
            if !reporter.report(.R31, "an error object MUST contain at least one of id, links, status, code, title, detail, source, meta", at: .container) { return false }
        default: break
        }
        return afterValue()
    }

    mutating func string(_ value: UnsafeRawBufferPointer, reporter: some RuleReporter) -> Bool {
        if skipDepth > 0 { return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything, .plainString: break
        case .link, .href:
            if !SyntaxRules.isURIReference(value) {
                if !reporter.report(.R27, "\(quoted(String(decoding: value, as: UTF8.self))) is not a URI-reference (RFC 3986)") { return false }
            }
        case .relationType:
            if !SyntaxRules.isRelationType(value) {
                if !reporter.report(.R29, "rel \(quoted(String(decoding: value, as: UTF8.self))) is not a link relation type (RFC 8288)") { return false }
            }
        case .hreflang, .hreflangString:
            if !SyntaxRules.isLanguageTag(value) {
                if !reporter.report(.R29, "hreflang \(quoted(String(decoding: value, as: UTF8.self))) is not a language tag (BCP 47)") { return false }
            }
        case .uriString(let name):
            if !SyntaxRules.isURIReference(value) {
                if !reporter.report(.R30, "jsonapi.\(name) MUST hold URIs; \(quoted(String(decoding: value, as: UTF8.self))) is not one") { return false }
            }
        case .sourcePointer:
            if !SyntaxRules.isJSONPointer(value) {
                if !reporter.report(.R34, "source.pointer \(quoted(String(decoding: value, as: UTF8.self))) is not a JSON pointer (RFC 6901)") { return false }
            }
        default:
            if !wrongValue(e, found: "a string", reporter) { return false }
        }
        return afterValue()
    }

    mutating func scalar(_ kind: ScalarKind, reporter: some RuleReporter) -> Bool {
        if skipDepth > 0 { return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: break
        case .link where kind == .null: break
        default:
            let found = kind == .null ? "null" : (kind == .bool ? "a boolean" : "a number")
            if !wrongValue(e, found: found, reporter) { return false }
        }
        return afterValue()
    }

    // MARK: - Member names

    /// `prefix` is the name's first eight bytes, zero-padded (as the receiver computed it).
    mutating func key(_ name: UnsafeRawBufferPointer, prefix p: UInt64, reporter: some RuleReporter) -> Bool {
        if skipDepth > 0 { return true }
        guard !stack.isEmpty else { return true }
        let n = name.count
        let top = stack.topPointer
        switch top.pointee {
        case .skip, .meta:
            // A meta object's members are any JSON: the member-name rules do not cover them.
            // (Most names checked here are a meta object's: they are not asked whether they
            // are exempt, an `@` member or an extension's, as the others are below.)
            expect = .anything
            return true
        case .links(let owner, let saw) where owner != .error:
            // `self` and `related`, most link names of a document: standard and never exempt
            // (no `@`, no colon), so answered before the exemption is asked (at 15.7 MB,
            // 27,901 of the 63,906 names checked here).
            guard (p == ShortName.self_ && n == 4) || (p == ShortName.related && n == 7) else { break }
            expect = .link
            if owner == .relationship && !saw { top.pointee = .links(owner, sawSelfOrRelated: true) }
            return true
        default: break
        }
        let exempt = name.first == UInt8(ascii: "@") || isExtensionMember(name)
        @inline(__always) func named(_ word: UInt64, _ length: Int) -> Bool { p == word && n == length }
        switch top.pointee {
        case .skip, .meta:
            // Answered above. (A `lazy var exempt` instead of the two switches was dearer:
            // its getter is not inlined and its access is checked at run time.)
            return true
        case .links(let owner, let saw):
            expect = exempt ? .anything : .link
            let isSelf = named(ShortName.self_, 4)
            let isRelated = named(ShortName.related, 7)
            if owner == .relationship && !saw && (isSelf || isRelated || isExtensionMember(name)) {
                top.pointee = .links(owner, sawSelfOrRelated: true)
            }
            let isAbout = named(ShortName.about, 5)
            let isType = named(ShortName.type, 4)
            if owner == .error && !exempt && !isAbout && !isType {
                return reporter.report(.R35, "error links MAY contain only about and type, not \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            let standard =
                isSelf || isRelated || isAbout || isType || named(ShortName.first, 5) || named(ShortName.last, 4)
                || named(ShortName.prev, 4) || named(ShortName.next, 4) || (n == 11 && memoryEqual(name, staticBytes("describedby")))
            if !exempt && !standard {
                return reporter.checkMemberName(name, what: "link name", always: false)
            }
            return true
        case .linkObject:
            if exempt { expect = .anything; return true }
            if named(ShortName.href, 4) {
                top.pointee = .linkObject(sawHref: true)
                expect = .href
            } else if named(ShortName.rel, 3) {
                expect = .relationType
            } else if n == 11 && memoryEqual(name, staticBytes("describedby")) {
                expect = .link
            } else if named(ShortName.title, 5) {
                expect = .plainString(.R29, "title")
            } else if named(ShortName.type, 4) {
                expect = .plainString(.R29, "type")
            } else if named(ShortName.hreflang, 8) {
                expect = .hreflang
            } else if named(ShortName.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return reporter.report(.R29, "a link object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .jsonapi:
            if exempt { expect = .anything; return true }
            if named(ShortName.version, 7) {
                expect = .plainString(.R30, "version")
            } else if named(ShortName.ext, 3) {
                expect = .uriArray("ext")
            } else if named(ShortName.profile, 7) {
                expect = .uriArray("profile")
            } else if named(ShortName.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return reporter.report(.R30, "the jsonapi object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .error(let members):
            if exempt { expect = .anything; return true }
            if named(ShortName.id, 2) {
                expect = .plainString(.R33, "id")
            } else if named(ShortName.status, 6) {
                expect = .plainString(.R33, "status")
            } else if named(ShortName.code, 4) {
                expect = .plainString(.R33, "code")
            } else if named(ShortName.title, 5) {
                expect = .plainString(.R33, "title")
            } else if named(ShortName.detail, 6) {
                expect = .plainString(.R33, "detail")
            } else if named(ShortName.source, 6) {
                expect = .errorSource
            } else if named(ShortName.links, 5) {
                expect = .linksObject(.error)
            } else if named(ShortName.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return reporter.report(.R32, "an error object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            top.pointee = .error(members: members + 1)
            return true
        case .source:
            if exempt { expect = .anything; return true }
            if named(ShortName.pointer, 7) {
                expect = .sourcePointer
            } else if n == 9 && memoryEqual(name, staticBytes("parameter")) {
                expect = .plainString(.R34, "source.parameter")
            } else if named(ShortName.header, 6) {
                expect = .plainString(.R34, "source.header")
            } else {
                expect = .anything
                return reporter.report(.R34, "an error source MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .errors, .hreflangArray, .uriArray:
            expect = .anything
            return true
        }
    }

    // MARK: - Helpers

    private mutating func pushSkip() -> Bool {
        skipDepth = 1
        stack.push(.skip)
        return true
    }

    /// After a value inside an array, the next element expects the same.
    private mutating func afterValue() -> Bool {
        if stack.isEmpty { expect = .anything; return true }
        switch stack.top {
        case .errors: expect = .errorObject
        case .hreflangArray: expect = .hreflangString
        case .uriArray(let name): expect = .uriString(name)
        default: expect = .anything
        }
        return true
    }

    private func isExtensionMember(_ name: UnsafeRawBufferPointer) -> Bool {
        guard !extensions.isEmpty, let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return extensions.contains(String(decoding: UnsafeRawBufferPointer(rebasing: name[..<colon]), as: UTF8.self))
    }

    private func wrongValue(_ e: Expect, found: String, _ reporter: some RuleReporter) -> Bool {
        switch e {
        case .metaObject: return reporter.report(.R24, "meta MUST be an object, not \(found)")
        case .linksObject: return reporter.report(.R25, "links MUST be an object, not \(found)")
        case .link: return reporter.report(.R26, "a link MUST be a string, a link object or null, not \(found)")
        case .href: return reporter.report(.R28, "href MUST be a string, not \(found)")
        case .relationType: return reporter.report(.R29, "rel MUST be a string, not \(found)")
        case .plainString(let rule, let name): return reporter.report(rule, "\(name) MUST be a string, not \(found)")
        case .hreflang, .hreflangString: return reporter.report(.R29, "hreflang MUST be a string or an array of strings, not \(found)")
        case .uriString(let name): return reporter.report(.R30, "jsonapi.\(name) MUST be an array of URI strings, not one holding \(found)")
        case .jsonapiObject: return reporter.report(.R30, "jsonapi MUST be an object, not \(found)")
        case .uriArray(let name): return reporter.report(.R30, "jsonapi.\(name) MUST be an array of URI strings, not \(found)")
        case .errorsArray: return reporter.report(.R08, "errors MUST be an array of error objects, not \(found)")
        case .errorObject: return reporter.report(.R08, "errors MUST be an array of error objects, not \(found)")
        case .errorSource: return reporter.report(.R34, "source MUST be an object, not \(found)")
        case .sourcePointer: return reporter.report(.R34, "source.pointer MUST be a string, not \(found)")
        case .anything: return true
        }
    }
}

/// Where the checks on stored values report: a finding is a warning or an error by the
/// validation mode, at the current token's position and pointer unless told otherwise.
protocol RuleReporter: AnyObject {
    /// Reports a rule violation; false stops the parse (strict mode).
    func report(_ rule: Rule, _ message: @autoclosure () -> String, at place: JSONEventReceiver.Place, pointer: String?) -> Bool
    /// Checks a member name against the naming rules (R37–R41), reporting what is wrong.
    func checkMemberName(_ name: UnsafeRawBufferPointer, what: StaticString, always: Bool) -> Bool
}

extension RuleReporter {
    @discardableResult
    func report(_ rule: Rule, _ message: @autoclosure () -> String, at place: JSONEventReceiver.Place = .currentToken) -> Bool {
        report(rule, message(), at: place, pointer: nil)
    }
}
