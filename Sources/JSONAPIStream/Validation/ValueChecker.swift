/// Checks the values the builder stores without interpreting (meta, links, `jsonapi`,
/// errors) against R19 and R24–R35 while they stream by, so that each finding has the
/// exact position and JSON pointer of the offending token.
///
/// It sees the raw events of one stored value at a time: ``begin(_:builder:)`` says what the
/// value should be (``Schema``); each key sets what its value should be (``Expect``);
/// containers push a ``Node`` saying how to read their members.
struct ValueChecker {
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
        case plainString(Rule, String)
        case hreflang
        case hreflangString
        case jsonapiObject
        case uriArray(String)
        case uriString(String)
        case errorsArray
        case errorObject
        case errorSource
        case sourcePointer
    }

    enum Node: Equatable {
        case skip
        case meta
        case links(LinksOwner, sawSelfOrRelated: Bool)
        case linkObject(sawHref: Bool)
        case hreflangArray
        case jsonapi
        case uriArray(String)
        case errors
        case error(members: Int)
        case source
        case attributes
    }

    var expect = Expect.anything
    var stack: [Node] = []
    /// Depth inside a skipped subtree.
    var skipDepth = 0
    var extensions: Set<String> = []
    /// Check custom link names and meta member names (strict mode only, SPEC-RULES note c).
    var strictNames = false

    mutating func begin(_ schema: Schema, builder: DocumentBuilder) {
        stack.removeAll(keepingCapacity: true)
        skipDepth = 0
        switch schema {
        case .meta: expect = .metaObject
        case .jsonapi: expect = .jsonapiObject
        case .errors: expect = .errorsArray
        case .links(let owner): expect = .linksObject(owner)
        case .attributes: expect = .anything; stack.append(.attributes)
        }
    }

    // MARK: - Values

    enum ScalarKind { case number, bool, null }

    mutating func startObject(builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { skipDepth += 1; return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: return push(.skip)
        case .metaObject: stack.append(.meta); return true
        case .linksObject(let owner): stack.append(.links(owner, sawSelfOrRelated: false)); return true
        case .link: stack.append(.linkObject(sawHref: false)); return true
        case .jsonapiObject: stack.append(.jsonapi); return true
        case .errorObject: stack.append(.error(members: 0)); return true
        case .errorSource: stack.append(.source); return true
        case .errorsArray:
            _ = push(.skip)
            return builder.report(.R08, "errors MUST be an array of error objects, not an object")
        default:
            _ = push(.skip)
            return wrongValue(e, found: "an object", builder)
        }
    }

    mutating func startArray(builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { skipDepth += 1; return true }
        let e = expect
        expect = .anything
        switch e {
        case .anything: return push(.skip)
        case .errorsArray: stack.append(.errors); expect = .errorObject; return true
        case .hreflang: stack.append(.hreflangArray); expect = .hreflangString; return true
        case .uriArray(let name): stack.append(.uriArray(name)); expect = .uriString(name); return true
        default:
            _ = push(.skip)
            return wrongValue(e, found: "an array", builder)
        }
    }

    mutating func endContainer(builder: DocumentBuilder) -> Bool {
        if skipDepth > 1 { skipDepth -= 1; return true }
        if skipDepth == 1 { skipDepth = 0; _ = stack.popLast(); return afterValue() }
        guard let node = stack.popLast() else { return true }
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

    // MARK: - Keys

    mutating func key(_ name: UnsafeRawBufferPointer, builder: DocumentBuilder) -> Bool {
        if skipDepth > 0 { return true }
        guard let top = stack.last else { return true }
        let exempt = name.first == UInt8(ascii: "@") || isExtensionMember(name)
        switch top {
        case .skip, .attributes:
            expect = .anything
            return true
        case .meta:
            expect = .anything
            return builder.checkMemberName(name, what: "meta member name", always: false)
        case .links(let owner, let saw):
            expect = exempt ? .anything : .link
            let n = String(decoding: name, as: UTF8.self)
            if owner == .relationship && !saw && (n == "self" || n == "related" || isExtensionMember(name)) {
                stack[stack.count - 1] = .links(owner, sawSelfOrRelated: true)
            }
            if owner == .error && !exempt && n != "about" && n != "type" {
                return builder.report(.R35, "error links MAY contain only about and type, not \(quoted(n))")
            }
            if !exempt && !["self", "related", "about", "type", "describedby", "first", "last", "prev", "next"].contains(n) {
                return builder.checkMemberName(name, what: "link name", always: false)
            }
            return true
        case .linkObject:
            if exempt { expect = .anything; return true }
            switch String(decoding: name, as: UTF8.self) {
            case "href":
                stack[stack.count - 1] = .linkObject(sawHref: true)
                expect = .href
            case "rel": expect = .relationType
            case "describedby": expect = .link
            case "title": expect = .plainString(.R29, "title")
            case "type": expect = .plainString(.R29, "type")
            case "hreflang": expect = .hreflang
            case "meta": expect = .metaObject
            default:
                expect = .anything
                return builder.report(.R29, "a link object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .jsonapi:
            if exempt { expect = .anything; return true }
            switch String(decoding: name, as: UTF8.self) {
            case "version": expect = .plainString(.R30, "version")
            case "ext": expect = .uriArray("ext")
            case "profile": expect = .uriArray("profile")
            case "meta": expect = .metaObject
            default:
                expect = .anything
                return builder.report(.R30, "the jsonapi object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .error(let members):
            if exempt { expect = .anything; return true }
            stack[stack.count - 1] = .error(members: members + 1)
            switch String(decoding: name, as: UTF8.self) {
            case "id": expect = .plainString(.R33, "id")
            case "status": expect = .plainString(.R33, "status")
            case "code": expect = .plainString(.R33, "code")
            case "title": expect = .plainString(.R33, "title")
            case "detail": expect = .plainString(.R33, "detail")
            case "source": expect = .errorSource
            case "links": expect = .linksObject(.error)
            case "meta": expect = .metaObject
            default:
                expect = .anything
                stack[stack.count - 1] = .error(members: members)
                return builder.report(.R32, "an error object MUST NOT contain the member \(quoted(String(decoding: name, as: UTF8.self)))")
            }
            return true
        case .source:
            if exempt { expect = .anything; return true }
            switch String(decoding: name, as: UTF8.self) {
            case "pointer": expect = .sourcePointer
            case "parameter": expect = .plainString(.R34, "source.parameter")
            case "header": expect = .plainString(.R34, "source.header")
            default:
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

    private mutating func push(_ node: Node) -> Bool {
        if node == .skip { skipDepth = 1 }
        stack.append(node)
        return true
    }

    /// After a value inside an array, the next element expects the same.
    private mutating func afterValue() -> Bool {
        switch stack.last {
        case .errors: expect = .errorObject
        case .hreflangArray: expect = .hreflangString
        case .uriArray(let name): expect = .uriString(name)
        default: expect = .anything
        }
        return true
    }

    private func isExtensionMember(_ name: UnsafeRawBufferPointer) -> Bool {
        guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return false }
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
