import Foundation
import Testing
@testable import JSONAPIStream
import JSONAPIStreamFoundation
@testable import JSONAPIBenchmarking

/// Values: numbers at the edges, dates, URLs, key strategies, transforms, lazy accessors.
struct DecodingValueTests {
    /// A one-resource graph whose attributes are `attributes` (JSON text).
    func resource(_ attributes: String) throws -> Resource {
        try #require(try graph(#"{"data":{"type":"t","id":"1","attributes":"# + attributes + "}}").primary.first)
    }

    struct One<T: Decodable>: Decodable { var v: T }

    func one<T: Decodable>(_ type: T.Type, _ json: String, options: DecodingOptions = .default) throws -> T {
        try resource(#"{"v":"# + json + "}").decode(One<T>.self, options: options).v
    }

    func failure<T: Decodable>(_ type: T.Type, _ json: String, options: DecodingOptions = .default) throws -> (kind: String, message: String) {
        let e = try #require(decodingError { try one(T.self, json, options: options) })
        return (kind(e), message(e))
    }

    // MARK: - Integers

    @Test func integers() throws {
        #expect(try one(Int.self, "42") == 42)
        #expect(try one(Int.self, "-17") == -17)
        #expect(try one(Int.self, "-0") == 0)
        #expect(try one(Int64.self, "-9223372036854775808") == .min)
        #expect(try one(UInt64.self, "18446744073709551615") == .max)
        #expect(try one(Int.self, "2.5e10") == 25_000_000_000)
        #expect(try one(Int.self, "1.0") == 1)
        #expect(try one(Int8.self, "-128") == -128)
        #expect(try one([UInt16].self, "[1,65535]") == [1, 65535])
    }

    @Test func integerOverflowAndFractions() throws {
        #expect(try failure(Int8.self, "300") == ("dataCorrupted", "t/1 /attributes/v: expected Int8, found number 300, which does not fit in Int8"))
        #expect(try failure(UInt.self, "-1").message.hasSuffix("which does not fit in UInt"))
        #expect(try failure(Int.self, "123456789012345678901234567890").message.hasSuffix("which does not fit in Int"))
        #expect(try failure(Int64.self, "9223372036854775808").kind == "dataCorrupted")
        #expect(try failure(Int.self, "1e400").message.hasSuffix("found number 1e400, which does not fit in Int"))
        #expect(try failure(Int.self, "1.5") == ("dataCorrupted", "t/1 /attributes/v: expected Int, found number 1.5, which is not an integer"))
        #expect(try failure(Int.self, "1e-2").message.hasSuffix("which is not an integer"))
    }

    @Test func integerFailuresSayWhy() throws {
        let f = try failure(Int.self, "1.5")
        #expect(f.kind == "dataCorrupted")
        #expect(f.message.contains("1.5"))
        #expect(f.message.contains("not an integer"))
    }

    // MARK: - Floating point

    @Test func doubles() throws {
        #expect(try one(Double.self, "0.1") == 0.1)
        #expect(try one(Double.self, "3.14159") == 3.14159)
        #expect(try one(Double.self, "1.10") == 1.1)
        #expect(try one(Double.self, "-1E-7") == -1e-7)
        #expect(try one(Double.self, "2.5e10") == 2.5e10)
        #expect(try one(Double.self, "1e300") == 1e300)
        #expect(try one(Double.self, "9007199254740992") == 9_007_199_254_740_992)
        #expect(try one(Double.self, "0.30000000000000004") == 0.30000000000000004)
        #expect(try one(Double.self, "5e-324") == .leastNonzeroMagnitude)
        #expect(try one(Double.self, "12") == 12)
        #expect(try one(Float.self, "0.1") == 0.1 as Float)
    }

    @Test func longIntegersThatTheTypeHoldsExactlyAreExact() throws {
        // -2^63, 2^63 and 2^32 have more digits than the shortest form of their Double (or
        // Float), but the type holds each exactly: nothing is lost, so `.exact` takes them,
        // and JSONNumber's exact accessor agrees with the decoder (the decode fuzz target's
        // check found they disagreed on -2^63).
        #expect(try one(Double.self, "-9223372036854775808") == -0x1p63)
        #expect(try one(Double.self, "9223372036854775808") == 0x1p63)
        #expect(try one(Double.self, "18446744073709549568") == 0x1p64 - 2048)
        #expect(try one(Float.self, "4294967296") == 0x1p32 as Float)
        #expect(JSONNumber(uncheckedText: "-9223372036854775808").exactDoubleValue == -0x1p63)
        #expect(JSONNumber(uncheckedText: "9223372036854775808").exactDoubleValue == 0x1p63)
        // Integers a Double does not hold are still refused, as are those of 2^64 and more
        // whose digits the shortest form does not keep.
        #expect(try failure(Double.self, "9223372036854775807").message.hasSuffix("has more significant digits than Double keeps"))
        #expect(try failure(Double.self, "18446744073709551616").message.hasSuffix("has more significant digits than Double keeps"))
        #expect(JSONNumber(uncheckedText: "9223372036854775807").exactDoubleValue == nil)
        #expect(try failure(Float.self, "4294967297").message.hasSuffix("has more significant digits than Float keeps"))
    }

    @Test func doublesFailLoudly() throws {
        #expect(try failure(Double.self, "1e400") == ("dataCorrupted", "t/1 /attributes/v: expected Double, found number 1e400, which does not fit in Double"))
        #expect(try failure(Double.self, "-1e400").message.hasSuffix("does not fit in Double"))
        #expect(try failure(Double.self, "1e-400").message.hasSuffix("too small for Double (it would become 0)"))
        #expect(try failure(Double.self, "9007199254740993").message.hasSuffix("has more significant digits than Double keeps"))
        #expect(try failure(Double.self, "3.14159265358979323846").kind == "dataCorrupted")
        #expect(try failure(Float.self, "16777217").message.hasSuffix("has more significant digits than Float keeps"))
        #expect(try failure(Float.self, "1e39").message.hasSuffix("does not fit in Float"))
        // `.nearest` rounds, but still refuses what does not fit.
        var nearest = DecodingOptions()
        nearest.floatingPoint = .nearest
        #expect(try one(Double.self, "9007199254740993", options: nearest) == 9_007_199_254_740_992)
        #expect(try one(Double.self, "3.14159265358979323846", options: nearest) == Double.pi)
        #expect(try failure(Double.self, "1e400", options: nearest).kind == "dataCorrupted")
    }

    @Test func decimalsAndExactNumbers() throws {
        #expect(try one(Decimal.self, "123456789012345678901234567890") == Decimal(string: "123456789012345678901234567890"))
        #expect(try one(Decimal.self, "19.99") == Decimal(string: "19.99"))
        #expect(try one(Decimal.self, "-0") == 0)
        #expect(try failure(Decimal.self, "1e400").message.hasSuffix("does not fit in Decimal"))
        #expect(try failure(Decimal.self, "1234567890123456789012345678901234567890").message.hasSuffix("has more significant digits than Decimal keeps"))
        #expect(try one(JSONNumber.self, "1e400").text == "1e400")
        #expect(try one(JSONNumber.self, "-0").text == "-0")
        #expect(try failure(JSONNumber.self, #""1""#).kind == "typeMismatch")
    }

    // MARK: - Wrong types and null

    @Test func wrongTypes() throws {
        #expect(try failure(Int.self, #""12""#) == ("typeMismatch", #"t/1 /attributes/v: expected Int, found string "12""#))
        #expect(try failure(String.self, "12") == ("typeMismatch", "t/1 /attributes/v: expected String, found number 12"))
        #expect(try failure(Bool.self, "1").kind == "typeMismatch")
        #expect(try failure(Double.self, "true") == ("typeMismatch", "t/1 /attributes/v: expected Double, found bool true"))
        #expect(try failure([Int].self, #"{"a":1}"#).message == #"t/1 /attributes/v: expected an array, found object {"a":1}"#)
        #expect(try failure([String: Int].self, "[1]").kind == "typeMismatch")
        #expect(try failure(Int.self, "null") == ("valueNotFound", "t/1 /attributes/v: expected Int, found null"))
        #expect(try failure([Int].self, "[1,null]") == ("valueNotFound", "t/1 /attributes/v/1: expected Int, found null"))
        let long = String(repeating: "x", count: 100)
        #expect(try failure(Int.self, "\"\(long)\"").message.hasSuffix("found string \"" + String(repeating: "x", count: 47) + "…"))
        #expect(try one(Int?.self, "null") == nil)
        #expect(try one([Int?].self, "[1,null]") == [1, nil])
    }

    @Test func pointersAndPathsOfNestedValues() throws {
        struct Deep: Decodable { var list: [Item] }
        struct Item: Decodable { var name: String }
        let r = try resource(#"{"a/b~c":{"list":[{"name":"x"},{"name":5}]}}"#)
        struct Top: Decodable { var inner: Deep; enum CodingKeys: String, CodingKey { case inner = "a/b~c" } }
        let e = try #require(decodingError { try r.decode(Top.self) })
        #expect(message(e) == "t/1 /attributes/a~1b~0c/list/1/name: expected String, found number 5")
        #expect(path(e) == ["a/b~c", "list", "1", "name"])
    }

    // MARK: - Strings and member names

    @Test func stringsAndEscapes() throws {
        #expect(try one(String.self, #""plain""#) == "plain")
        #expect(try one(String.self, #""tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \u0000""#) == "tab\there \"q\" \\ / é 😀 \u{0}")
        #expect(try one(String.self, #""東京で会いましょう""#) == "東京で会いましょう")
        #expect(try one([String].self, #"["a\nb","c"]"#) == ["a\nb", "c"])
        #expect(try one(String.self, #""""#) == "")
    }

    @Test func escapedMemberNames() throws {
        struct Odd: Decodable {
            var quoted: Int
            var slashed: Int
            var nested: [String: Int]
            enum CodingKeys: String, CodingKey { case quoted = "a\"b", slashed = "c\\d", nested = "n\te" }
        }
        let r = try resource(#"{"a\"b":1,"c\\d":2,"n\te":{"x\u0001":3}}"#)
        let o = try r.decode(Odd.self)
        #expect(o.quoted == 1 && o.slashed == 2 && o.nested == ["x\u{1}": 3])
    }

    @Test func duplicateNamesInValuesTakeTheLast() throws {
        var options = DocumentOptions()
        options.parse.duplicateMembers = .allowInValues
        let g = try graph(#"{"data":{"type":"t","id":"1","attributes":{"v":{"a":1,"b":2,"a":3}}}}"#, options: options)
        struct AB: Decodable { var a: Int; var b: Int }
        let v = try g.primary[0].decode(One<AB>.self).v
        #expect(v.a == 3 && v.b == 2)
        #expect(g.primary[0].attributes["v"]?["a"]?.number?.intValue == 3)
    }

    // MARK: - Dates

    @Test func iso8601Dates() throws {
        let cases: [(String, Double)] = [
            ("2026-03-01T12:30:00Z", 1_772_368_200),
            ("2026-03-01T12:30:00.5Z", 1_772_368_200.5),
            ("2026-03-01T12:30:00.123456789Z", 1_772_368_200.123456789),
            ("2026-03-01T13:30:00+01:00", 1_772_368_200),
            ("2026-03-01T07:00:00-0530", 1_772_368_200),
            ("2026-03-01t12:30:00z", 1_772_368_200),
            ("2024-02-29T00:00:00Z", 1_709_164_800),
            ("1969-12-31T23:59:59Z", -1),
            ("1970-01-01T00:00:00Z", 0),
        ]
        for (text, seconds) in cases {
            let d = try one(Date.self, "\"\(text)\"")
            #expect(abs(d.timeIntervalSince1970 - seconds) < 1e-6, "\(text)")
        }
    }

    @Test func iso8601AgreesWithFoundation() throws {
        let formatter = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let seconds = Double(rng.next() % 8_000_000_000) - 2_000_000_000
            let date = Date(timeIntervalSince1970: seconds)
            let text = rng.next() % 2 == 0 ? formatter.string(from: date) : fractional.string(from: date.addingTimeInterval(0.125))
            let expected = rng.next() % 2 == 0 ? formatter.date(from: text) ?? fractional.date(from: text) : fractional.date(from: text) ?? formatter.date(from: text)
            #expect(try one(Date.self, "\"\(text)\"") == expected, "\(text)")
        }
    }

    @Test func badDates() throws {
        for text in [
            "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-03-01T24:00:00Z", "2026-03-01T12:30:00",
            "2026-03-01", "2026-03-01T12:30Z", "2026-03-01T12:30:00.Z", "2026-03-01T12:30:00+1", "yesterday",
            "2026-03-01T12:30:00Zjunk", "2025-02-29T00:00:00Z",
        ] {
            let f = try failure(Date.self, "\"\(text)\"")
            #expect(f.kind == "dataCorrupted", "\(text)")
            #expect(f.message.hasPrefix("t/1 /attributes/v: expected an ISO 8601 date-time"), "\(text)")
            #expect(f.message.hasSuffix("found string \"\(text)\""), "\(text)")
        }
        #expect(try failure(Date.self, "1700000000").kind == "typeMismatch")
        #expect(try failure(Date.self, "null").kind == "valueNotFound")
        #expect(try one(Date?.self, "null") == nil)
    }

    @Test func otherDateStrategies() throws {
        var options = DecodingOptions()
        options.dates = .secondsSince1970
        #expect(try one(Date.self, "1700000000.5", options: options) == Date(timeIntervalSince1970: 1_700_000_000.5))
        options.dates = .millisecondsSince1970
        #expect(try one(Date.self, "1700000000500", options: options) == Date(timeIntervalSince1970: 1_700_000_000.5))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd/MM/yyyy"
        options.dates = .formatted(formatter)
        #expect(try one(Date.self, #""02/01/1970""#, options: options) == Date(timeIntervalSince1970: 86_400))
        let f = try failure(Date.self, #""1970-01-02""#, options: options)
        #expect(f.message == #"t/1 /attributes/v: expected a date in the format "dd/MM/yyyy", found string "1970-01-02""#)
        options.dates = .custom { value in
            guard let n = try value.number?.int() else { throw CocoaError(.coderInvalidValue) }
            return Date(timeIntervalSince1970: Double(n) * 86_400)
        }
        #expect(try one(Date.self, "2", options: options) == Date(timeIntervalSince1970: 172_800))
        #expect(try failure(Date.self, #""x""#, options: options).message.hasPrefix("t/1 /attributes/v: the transform for Date failed"))
    }

    // MARK: - URLs

    @Test func urlsResolveAgainstTheBase() throws {
        #expect(try one(URL.self, #""https://example.com/a?b=1""#).absoluteString == "https://example.com/a?b=1")
        #expect(try one(URL.self, #""/articles/1""#).relativeString == "/articles/1")
        var options = DecodingOptions()
        options.baseURL = URL(string: "https://api.example.com/v2/")
        #expect(try one(URL.self, #""articles/1""#, options: options).absoluteString == "https://api.example.com/v2/articles/1")
        #expect(try one(URL.self, #""/people/9""#, options: options).absoluteString == "https://api.example.com/people/9")
        #expect(try one(URL.self, #""https://other.example/x""#, options: options).absoluteString == "https://other.example/x")
        #expect(try failure(URL.self, "5").kind == "typeMismatch")
    }

    // MARK: - Transforms

    struct Money: Decodable, Equatable {
        var cents: Int
        init(cents: Int) { self.cents = cents }
        init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "use the transform")) }
    }

    @Test func registeredTransforms() throws {
        var options = DecodingOptions()
        options.transforms.register(Money.self) { value in
            guard let text = value.string, let d = Decimal(string: text) else {
                throw DecodingError.typeMismatch(Money.self, .init(codingPath: [], debugDescription: "expected a price string"))
            }
            return Money(cents: NSDecimalNumber(decimal: d * 100).intValue)
        }
        options.transforms.register(Date.self) { value in Date(timeIntervalSince1970: Double(try value.int())) }
        struct Priced: Decodable { var price: Money; var prices: [Money]; var when: Date; var maybe: Money? }
        let r = try resource(#"{"price":"19.99","prices":["1","2.50"],"when":60,"maybe":null}"#)
        let p = try r.decode(Priced.self, options: options)
        #expect(p.price == Money(cents: 1999))
        #expect(p.prices == [Money(cents: 100), Money(cents: 250)])
        #expect(p.when == Date(timeIntervalSince1970: 60))
        #expect(p.maybe == nil)
        let bad = try resource(#"{"price":5,"prices":[],"when":1}"#)
        let e = try #require(decodingError { try bad.decode(Priced.self, options: options) })
        // The closure's error, placed: the resource and pointer in the message, the member
        // in the coding path (issue 21: it came back with an empty path and no place).
        #expect(message(e) == "t/1 /attributes/price: expected a price string")
        #expect(path(e) == ["price"])
        if case .typeMismatch(let type, _)? = e as? DecodingError { #expect(ObjectIdentifier(type) == ObjectIdentifier(Money.self)) } else { Issue.record("\(e)") }
        // An accessor's error inside a transform, and a `.custom` date strategy's, alike.
        let late = try resource(#"{"price":"1","prices":[],"when":"soon"}"#)
        let e2 = try #require(decodingError { try late.decode(Priced.self, options: options) })
        #expect(message(e2).hasPrefix("t/1 /attributes/when: "), "\(message(e2))")
        #expect(path(e2) == ["when"])
        var custom = DecodingOptions()
        custom.dates = .custom { _ in throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a date I know")) }
        struct Dated: Decodable { var when: Date }
        let e3 = try #require(decodingError { try late.decode(Dated.self, options: custom) })
        #expect(message(e3) == "t/1 /attributes/when: not a date I know")
        #expect(path(e3) == ["when"])
        options.transforms.remove(Money.self)
        #expect(throws: DecodingError.self) { try r.decode(Priced.self, options: options) }
    }

    // MARK: - Key strategies

    struct Person: Decodable, Equatable {
        var id: String
        var type: String
        var firstName: String
        var lastName: String
        var homeAddress: Address
        var bestFriend: ResourceIdentifier?
    }
    struct Address: Decodable, Equatable { var streetName: String?; var street_name: String? }

    let people = #"""
        {"data":{"type":"people","id":"9","attributes":{"first-name":"Dan","last_name":"Gebhardt","home-address":{"street_name":"Main"}},
         "relationships":{"best-friend":{"data":{"type":"people","id":"2"}}}}}
        """#

    @Test func camelCaseStrategy() throws {
        var options = DecodingOptions()
        options.keys = .camelCase
        let p = try graph(people).decode(Person.self, options: options)
        #expect(
            p
                == Person(
                    id: "9", type: "people", firstName: "Dan", lastName: "Gebhardt",
                    homeAddress: Address(streetName: nil, street_name: "Main"), bestFriend: ResourceIdentifier(type: "people", id: "2")))
        // As is, the same model finds nothing.
        let e = try #require(decodingError { try graph(people).decode(Person.self) })
        #expect(kind(e) == "keyNotFound")
        #expect(message(e).contains(#"no attribute or relationship "firstName"; it has first-name, last_name, home-address, best-friend"#))
        options.keys = .convertFromSnakeCase
        #expect(try graph(people).decode(Person.self, options: options).firstName == "Dan")
    }

    @Test func strategiesMatchTheCommandsKeyFormats() throws {
        // Decoding the original with a strategy equals decoding `--keys camel` output as is.
        struct Flat: Decodable, Equatable { var firstName: String; var lastName: String }
        var options = DecodingOptions()
        options.keys = .format(.camel)
        let converted = try graph(#"{"data":{"type":"people","id":"9","attributes":{"firstName":"Dan","lastName":"Gebhardt"}}}"#)
        #expect(try graph(people).decode(Flat.self, options: options) == converted.decode(Flat.self))
        struct Snake: Decodable { var first_name: String; var best_friend: ResourceIdentifier }
        options.keys = .format(.snake)
        #expect(try graph(people).decode(Snake.self, options: options).best_friend.id == "2")
    }

    @Test func customStrategyAndReportedKeys() throws {
        var options = DecodingOptions()
        options.keys = .custom { $0.uppercased().replacingOccurrences(of: "-", with: "_") }
        struct Upper: Decodable { var id: String; var FIRST_NAME: String; var BEST_FRIEND: ResourceIdentifier }
        let u = try graph(people).decode(Upper.self, options: options)
        #expect(u.id == "9" && u.FIRST_NAME == "Dan" && u.BEST_FRIEND.id == "2")
        struct Keys: Decodable {
            var keys: [String]
            struct K: CodingKey { var stringValue: String; init(stringValue: String) { self.stringValue = stringValue }; var intValue: Int? { nil }; init?(intValue: Int) { nil } }
            init(from decoder: any Decoder) throws { keys = try decoder.container(keyedBy: K.self).allKeys.map(\.stringValue) }
        }
        #expect(try graph(people).decode(Keys.self, options: options).keys == ["id", "type", "FIRST_NAME", "LAST_NAME", "HOME_ADDRESS", "BEST_FRIEND"])
        options.keys = .camelCase
        #expect(try graph(people).decode(Keys.self, options: options).keys == ["id", "type", "firstName", "lastName", "homeAddress", "bestFriend"])
    }

    // MARK: - Lazy values and throwing accessors

    @Test func lazyAttributeValues() throws {
        let a = try article1()
        #expect(a.attributes["title"]?.kind == .string)
        #expect(a.attributes["views"]?.kind == .number)
        #expect(try a.attributes["views"]?.int() == 1024)
        #expect(try a.attributes["views"]?.int64() == 1024)
        #expect(try a.attributes["rating"]?.double() == 4.5)
        #expect(try a.attributes["score"]?.decimal() == Decimal(string: "123456789012345678901234567890"))
        #expect(a.attributes["published"]?.bool == true)
        #expect(a.attributes["deletedAt"]?.isNull == true)
        #expect(a.attributes["dimensions"]?["width"]?.number?.text == "800")
        #expect(a.attributes["tags-list"]?[1]?.string == "api")
        #expect(try a.attributes["dimensions"]?.decode(DecodingModelTests.Dimensions.self).height == 600.5)
        #expect(try a.attributes["publishedAt"]?.decode(Date.self) == Date(timeIntervalSince1970: 1_772_368_200))
        #expect(try a.meta?.decode([String: Int].self) == ["revision": 3])
        #expect(try a.graph.meta?.decode([String: Int].self) == ["total": 1])
        #expect(try LazyValue(detached: ["a": [1, 2]]).decode([String: [Int]].self) == ["a": [1, 2]])
    }

    @Test func throwingAccessorsSayWhy() throws {
        let a = try article1()
        func failure(_ body: () throws -> Any) -> (String, String) {
            do { _ = try body(); return ("none", "") } catch { return (kind(error), message(error)) }
        }
        #expect(failure { try a.attributes["huge"]!.int() } == ("dataCorrupted", "expected Int, found number 1e400, which does not fit in Int"))
        #expect(failure { try a.attributes["score"]!.int64() } == ("dataCorrupted", "expected Int64, found number 123456789012345678901234567890, which does not fit in Int64"))
        #expect(failure { try a.attributes["rating"]!.int() } == ("dataCorrupted", "expected Int, found number 4.5, which is not an integer"))
        #expect(failure { try a.attributes["big"]!.double() } == ("dataCorrupted", "expected Double, found number 9007199254740993, which has more significant digits than Double keeps"))
        #expect(failure { try a.attributes["huge"]!.double() }.1.hasSuffix("does not fit in Double"))
        #expect(failure { try a.attributes["tiny"]!.double() }.1.hasSuffix("too small for Double (it would become 0)"))
        #expect(failure { try a.attributes["title"]!.int() } == ("typeMismatch", "expected Int, found string \"JSON:API paints my bikeshed!\""))
        #expect(failure { try a.attributes["deletedAt"]!.int() } == ("valueNotFound", "expected Int, found null"))
        #expect(failure { try a.attributes["huge"]!.decimal() }.1.hasSuffix("does not fit in Decimal"))
        #expect(try JSONNumber("2.5e10")!.int() == 25_000_000_000)
        #expect(try JSONNumber("0.1")!.double() == 0.1)
        #expect(failure { try JSONNumber("1e400")!.double() }.0 == "dataCorrupted")
        #expect(failure { try JSONNumber("-9223372036854775809")!.int64() }.1.hasSuffix("does not fit in Int64"))
    }

    // MARK: - Other decoders

    @Test func graphTypesWithFoundationDecoders() throws {
        let id = try JSONDecoder().decode(ResourceIdentifier.self, from: Data(#"{"type":"people","id":"9"}"#.utf8))
        #expect(id == ResourceIdentifier(type: "people", id: "9"))
        let back = try JSONDecoder().decode(ResourceIdentifier.self, from: JSONEncoder().encode(ResourceIdentifier(type: "a", id: nil, lid: "x")))
        #expect(back.lid == "x" && back.id == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ResourceIdentifier.self, from: Data(#"{"type":"people"}"#.utf8)) }
        let v = try JSONDecoder().decode(JSONValue.self, from: Data(#"[1,"a",null,true,{"k":2.5}]"#.utf8))
        #expect(v[0]?.numberValue?.intValue == 1)
        #expect(v[1] == "a" && v[2] == .null && v[3] == true)
        #expect(v[4]?["k"]?.numberValue?.doubleValue == 2.5)
        #expect(try JSONDecoder().decode(JSONNumber.self, from: Data("12".utf8)).text == "12")
    }
}
