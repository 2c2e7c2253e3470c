/// Checks the values the builder stores without interpreting (meta, links, `jsonapi`,
/// errors) against R19 and R24–R35 while they stream by, so that each finding has the
/// exact position and JSON pointer of the offending token.
///
/// It sees the raw events of one stored value at a time: ``begin(_:builder:)`` says what the
/// value should be (``Schema``); each member name sets what its value should be
/// (``Expect``); containers push a ``Node`` saying how to read their members. All state is
/// trivial (no `String`s, no reference counting): this runs for every link of every resource.
struct ValueChecker: ~Copyable {
    enum LinksOwner: UInt8 { case document, resource, relationship, error, linkObject }

    enum Schema {
        case meta, jsonapi, errors, attributes
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
        case attributes
    }

    var expect = Expect.anything
    var stack = UnsafeStack<Node>(capacity: 16)
    /// Depth inside a skipped subtree.
    var skipDepth = 0
    var extensions: Set<String> = []
    /// Check custom link names (strict mode only).
    var strictNames = false

    init() {}

    mutating func begin(_ schema: Schema, builder: DocumentBuilder) {
        stack.removeAll()
        skipDepth = 0
        switch schema {
        case .meta: expect = .metaObject
        case .jsonapi: expect = .jsonapiObject
        case .errors: expect = .errorsArray
        case .links(let owner): expect = .linksObject(owner)
        case .attributes: expect = .anything; stack.push(.attributes)
        }
    }

    // MARK: - Values

    enum ScalarKind { case number, bool, null }

    mutating func startObject(builder: DocumentBuilder) -> Bool {
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
            return wrongValue(e, found: "an object", builder)
        }
    }

    mutating func startArray(builder: DocumentBuilder) -> Bool {
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
            return wrongValue(e, found: "an array", builder)
        }
    }

    mutating func endContainer(builder: DocumentBuilder) -> Bool {
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
            if !builder.report(.R19, "relationship links MUST contain self or related", at: .container) { return false }
        case .linkObject(let sawHref) where !sawHref:
            if !builder.report(.R28, "a link object MUST contain href", at: .container) { return false }
        case .error(let members) where members == 0:
            if !builder.report(.R31, "an error object MUST contain at least one of id, links, status, code, title, detail, source, meta", at: .container) { return false }
        default: break
        }
        return afterValue()
    }

    mutating func string(_ value: UnsafeRawBufferPointer, builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything, .plainString: break
        case .link, .href:
            if !SyntaxRules.isURIReference(value) {
                if !builder.report(.R27, "\(quoted(String(decoding: value, as: UTF8.self))) is not a URI-reference (RFC 3986)") { return false }
            }
        case .relationType:
            if !SyntaxRules.isRelationType(value) {
                if !builder.report(.R29, "rel \(quoted(String(decoding: value, as: UTF8.self))) is not a link relation type (RFC 8288)") { return false }
            }
        case .hreflang, .hreflangString:
            if !SyntaxRules.isLanguageTag(value) {
                if !builder.report(.R29, "hreflang \(quoted(String(decoding: value, as: UTF8.self))) is not a language tag (BCP 47)") { return false }
            }
        case .uriString(let name):
            if !SyntaxRules.isURIReference(value) {
                if !builder.report(.R30, "jsonapi.\(name) MUST hold URIs; \(quoted(String(decoding: value, as: UTF8.self))) is not one") { return false }
            }
        case .sourcePointer:
            if !SyntaxRules.isJSONPointer(value) {
                if !builder.report(.R34, "source.pointer \(quoted(String(decoding: value, as: UTF8.self))) is not a JSON pointer (RFC 6901)") { return false }
            }
        default:
            if !wrongValue(e, found: "a string", builder) { return false }
        }
        return afterValue()
    }

    mutating func scalar(_ kind: ScalarKind, builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: break
        case .link where kind == .null: break
        default:
            let found = kind == .null ? "null" : (kind == .bool ? "a boolean" : "a number")
            if !wrongValue(e, found: found, builder) { return false }
        }
        return afterValue()
    }

    // MARK: - Member names

    /// `prefix` is the name's first eight bytes, zero-padded (as the receiver computed it).
    mutating func key(_ name: UnsafeRawBufferPointer, prefix p: UInt64, builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { return true }
        guard !stack.isEmpty else { return true }
        let n = name.count
        let exempt = name.first == UInt8(ascii: "@") || isExtensionMember(name)
        @inline(__always) func named(_ word: UInt64, _ length: Int) -> Bool { p == word && n == length }
        let top = stack.topPointer
        switch top.pointee {
        case .skip, .attributes:
            expect = .anything
            return true
        case .meta:
            // A meta object's members are any JSON: the member-name rules do not cover them.
            expect = .anything
            return true
        case .links(let owner, let saw):
            expect = exempt ? .anything : .link
            let isSelf = named(Names.self_, 4)
            let isRelated = named(Names.related, 7)
            if owner == .relationship && !saw && (isSelf || isRelated || isExtensionMember(name)) {
                top.pointee = .links(owner, sawSelfOrRelated: true)
            }
            let isAbout = named(Names.about, 5)
            let isType = named(Names.type, 4)
            if owner == .error && !exempt && !isAbout && !isType {
                return builder.report(.R35, "error links MAY contain only about and type, not \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            let standard =
                isSelf || isRelated || isAbout || isType || named(Names.first, 5) || named(Names.last, 4)
                || named(Names.prev, 4) || named(Names.next, 4) || (n == 11 && memoryEqual(name, staticBytes("describedby")))
            if !exempt && !standard {
                return builder.checkMemberName(name, what: "link name", always: false)
            }
            return true
        case .linkObject:
            if exempt { expect = .anything; return true }
            if named(Names.href, 4) {
                top.pointee = .linkObject(sawHref: true)
                expect = .href
            } else if named(Names.rel, 3) {
                expect = .relationType
            } else if n == 11 && memoryEqual(name, staticBytes("describedby")) {
                expect = .link
            } else if named(Names.title, 5) {
                expect = .plainString(.R29, "title")
            } else if named(Names.type, 4) {
                expect = .plainString(.R29, "type")
            } else if named(Names.hreflang, 8) {
                expect = .hreflang
            } else if named(Names.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return builder.report(.R29, "a link object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .jsonapi:
            if exempt { expect = .anything; return true }
            if named(Names.version, 7) {
                expect = .plainString(.R30, "version")
            } else if named(Names.ext, 3) {
                expect = .uriArray("ext")
            } else if named(Names.profile, 7) {
                expect = .uriArray("profile")
            } else if named(Names.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return builder.report(.R30, "the jsonapi object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .error(let members):
            if exempt { expect = .anything; return true }
            if named(Names.id, 2) {
                expect = .plainString(.R33, "id")
            } else if named(Names.status, 6) {
                expect = .plainString(.R33, "status")
            } else if named(Names.code, 4) {
                expect = .plainString(.R33, "code")
            } else if named(Names.title, 5) {
                expect = .plainString(.R33, "title")
            } else if named(Names.detail, 6) {
                expect = .plainString(.R33, "detail")
            } else if named(Names.source, 6) {
                expect = .errorSource
            } else if named(Names.links, 5) {
                expect = .linksObject(.error)
            } else if named(Names.meta, 4) {
                expect = .metaObject
            } else {
                expect = .anything
                return builder.report(.R32, "an error object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            top.pointee = .error(members: members + 1)
            return true
        case .source:
            if exempt { expect = .anything; return true }
            if named(Names.pointer, 7) {
                expect = .sourcePointer
            } else if n == 9 && memoryEqual(name, staticBytes("parameter")) {
                expect = .plainString(.R34, "source.parameter")
            } else if named(Names.header, 6) {
                expect = .plainString(.R34, "source.header")
            } else {
                expect = .anything
                return builder.report(.R34, "an error source MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
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

    private func wrongValue(_ e: Expect, found: String, _ builder: DocumentBuilder) -> Bool {
        switch e {
        case .metaObject: return builder.report(.R24, "meta MUST be an object, not \(found)")
        case .linksObject: return builder.report(.R25, "links MUST be an object, not \(found)")
        case .link: return builder.report(.R26, "a link MUST be a string, a link object or null, not \(found)")
        case .href: return builder.report(.R28, "href MUST be a string, not \(found)")
        case .relationType: return builder.report(.R29, "rel MUST be a string, not \(found)")
        case .plainString(let rule, let name): return builder.report(rule, "\(name) MUST be a string, not \(found)")
        case .hreflang, .hreflangString: return builder.report(.R29, "hreflang MUST be a string or an array of strings, not \(found)")
        case .uriString(let name): return builder.report(.R30, "jsonapi.\(name) MUST be an array of URI strings, not one holding \(found)")
        case .jsonapiObject: return builder.report(.R30, "jsonapi MUST be an object, not \(found)")
        case .uriArray(let name): return builder.report(.R30, "jsonapi.\(name) MUST be an array of URI strings, not \(found)")
        case .errorsArray: return builder.report(.R08, "errors MUST be an array of error objects, not \(found)")
        case .errorObject: return builder.report(.R08, "errors MUST be an array of error objects, not \(found)")
        case .errorSource: return builder.report(.R34, "source MUST be an object, not \(found)")
        case .sourcePointer: return builder.report(.R34, "source.pointer MUST be a string, not \(found)")
        case .anything: return true
        }
    }
}

/// Member names as their first eight bytes, little-endian and zero-padded: compared with a
/// name's prefix and length, an exact match for names of eight bytes or fewer.
enum Names {
    static let self_: UInt64 = 0x666C_6573  // "self"
    static let related: UInt64 = 0x64_6574_616C_6572  // "related"
    static let about: UInt64 = 0x74_756F_6261  // "about"
    static let type: UInt64 = 0x6570_7974  // "type"
    static let first: UInt64 = 0x74_7372_6966  // "first"
    static let last: UInt64 = 0x7473_616C  // "last"
    static let prev: UInt64 = 0x7665_7270  // "prev"
    static let next: UInt64 = 0x7478_656E  // "next"
    static let href: UInt64 = 0x6665_7268  // "href"
    static let rel: UInt64 = 0x6C_6572  // "rel"
    static let title: UInt64 = 0x65_6C74_6974  // "title"
    static let hreflang: UInt64 = 0x676E_616C_6665_7268  // "hreflang"
    static let meta: UInt64 = 0x6174_656D  // "meta"
    static let version: UInt64 = 0x6E_6F69_7372_6576  // "version"
    static let ext: UInt64 = 0x74_7865  // "ext"
    static let profile: UInt64 = 0x65_6C69_666F_7270  // "profile"
    static let id: UInt64 = 0x6469  // "id"
    static let status: UInt64 = 0x7375_7461_7473  // "status"
    static let code: UInt64 = 0x6564_6F63  // "code"
    static let detail: UInt64 = 0x6C69_6174_6564  // "detail"
    static let source: UInt64 = 0x6563_7275_6F73  // "source"
    static let links: UInt64 = 0x73_6B6E_696C  // "links"
    static let pointer: UInt64 = 0x72_6574_6E69_6F70  // "pointer"
    static let header: UInt64 = 0x7265_6461_6568  // "header"
}
