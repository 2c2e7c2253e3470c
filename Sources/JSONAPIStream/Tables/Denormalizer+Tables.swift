extension Denormalizer {
    /// Reads a directory that `normalize --split-by-type` wrote (NDJSON or CSV tables): each
    /// type's rows joined with their relationships and linkage, then the documents' primary
    /// linkage and top-level members.
    ///
    /// Attributes come back in their table's column order. Under `--numbers safe` a number
    /// keeps its value but not always its form: a double column's integers were written with
    /// `.0` (`5` comes back as `5.0`); with `--numbers exact` every number comes back as it was.
    public func read(tables directory: String) throws(JSONAPIError) {
        let dir = try TableDirectory(path: directory)
        let relationships = try joinedRelationships(dir)
        for table in dir.types {
            guard let type = table.type else { continue }
            let columns = table.columns
            let index = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
            let attributeColumns = columns.indices.filter { !["id", "lid"].contains(columns[$0].name) && !columns[$0].name.hasPrefix("_") }
            try dir.forEachRow(of: table) { (number, row) throws(JSONAPIError) in
                let k = number - 1
                func cell(_ name: String) -> JSONValue? { index[name].flatMap { row[$0] } }
                var missing = Set<String>()
                if case .array(let names)? = cell("_missing") { for n in names { if let s = n.stringValue { missing.insert(s) } } }
                var other = JSONObject()
                if case .object(let o)? = cell("_other") { other = o }
                var resource = JSONObject()
                resource.append("type", .string(type))
                if let id = cell("id") { resource.append("id", id) }
                if let lid = cell("lid") { resource.append("lid", lid) }
                var attributes = JSONObject()
                for c in attributeColumns where !missing.contains(columns[c].name) {
                    attributes.append(columns[c].name, row[c] ?? .null)
                }
                switch other["attributes"] {
                case .object(let more)?: for m in more.members { attributes.append(m.key, m.value) }
                case let value?: resource.append("attributes", value)
                case nil: break
                }
                if resource["attributes"] == nil { resource.append("attributes", .object(attributes)) }
                var line = NormalizedRecordReader.Line(resource, dropping: { _ in false })
                if let members = relationships.members[type]?[k + 1] {
                    var object = ByteArena(capacity: 256)
                    appendJoined(members, of: relationships.text, "{", "}", to: &object)
                    object.withBytes { line.append("relationships", json: $0) }
                }
                var rest = JSONObject()
                if let links = cell("_links") { rest.append("links", links) }
                if let meta = cell("_meta") { rest.append("meta", meta) }
                for m in other.members where m.key != "attributes" { rest.append(m.key, m.value) }
                line.append(rest)
                try acceptResourceLine(line)
            }
        }
        let documents = dir.fixed["_documents"]!
        let names = documents.columns.map(\.name)
        for row in try dir.rows(of: documents) {
            func cell(_ name: String) -> JSONValue? { names.firstIndex(of: name).flatMap { row[$0] } }
            var top = JSONObject()
            switch cell("data")?.stringValue {
            case "null": top.append("data", .null)
            case "one", "many", "empty": top.append("data", cell("primary") ?? .array([]))
            default: break
            }
            for name in ["meta", "links", "jsonapi", "errors"] { if let v = cell(name) { top.append(name, v) } }
            if case .object(let o)? = cell("_other") { for m in o.members { top.append(m.key, m.value) } }
            try acceptDocumentLine(top)
        }
    }

    /// Each resource's relationships as JSON text, by type and row: `_relationships` rows with
    /// the `_edges` rows that follow them in the same order. Both tables are read a row at a
    /// time; what is kept is text (each edge's resource identifier, then each relationship
    /// row's `"name":{…}` member), not trees.
    private func joinedRelationships(_ dir: TableDirectory) throws(JSONAPIError) -> JoinedRelationships {
        let relationships = dir.fixed["_relationships"]!
        let edges = dir.fixed["_edges"]!
        let r = relationships.columns.map(\.name)
        let e = edges.columns.map(\.name)
        // The edges: each one's resource identifier as text, and what ties it to its
        // relationship row (from_type, from_row, relationship).
        var edgeText = JSONTextWriter()
        var edgeList: [(owner: (JSONValue?, JSONValue?, JSONValue?), text: Range<Int>)] = []
        try dir.forEachRow(of: edges) { (_, edge) throws(JSONAPIError) in
            func ecell(_ name: String) -> JSONValue? { e.firstIndex(of: name).flatMap { edge[$0] } }
            var identifier = JSONObject()
            identifier.append("type", ecell("to_type") ?? .null)
            if let id = ecell("to_id") { identifier.append("id", id) }
            if let lid = ecell("to_lid") { identifier.append("lid", lid) }
            if let meta = ecell("meta") { identifier.append("meta", meta) }
            if case .object(let o)? = ecell("_other") { for m in o.members { identifier.append(m.key, m.value) } }
            let start = edgeText.arena.count
            edgeText.write(.object(identifier))
            edgeList.append(((ecell("from_type"), ecell("from_row"), ecell("relationship")), start..<edgeText.arena.count))
        }
        var next = 0
        let out = JoinedRelationships()
        try dir.forEachRow(of: relationships) { (number, row) throws(JSONAPIError) in
            func cell(_ name: String) -> JSONValue? { r.firstIndex(of: name).flatMap { row[$0] } }
            func bad(_ what: String) -> JSONAPIError {
                .input("\(dir.path)/\(relationships.file), row \(number): \(what) (not a table written by normalize --split-by-type)")
            }
            guard let type = cell("from_type")?.stringValue, let name = cell("relationship")?.stringValue,
                case .number(let rowNumber)? = cell("from_row"), let from = Int(rowNumber.text),
                case .number(let countNumber)? = cell("count"), let count = Int(countNumber.text), count >= 0
            else { throw bad("no from_type, from_row, relationship or count") }
            guard next + count <= edgeList.count else { throw bad("fewer edges than its count") }
            let owner = (cell("from_type"), cell("from_row"), cell("relationship"))
            let targets = edgeList[next..<next + count]
            for edge in targets where edge.owner != owner { throw bad("its edges are not the next rows of \(edges.file)") }
            next += count
            // The relationship object: its linkage (from the edges' text), then its other members.
            var object = NormalizedRecordReader.Line()
            var data = ByteArena(capacity: 256)
            switch cell("data")?.stringValue {
            case "null": data.append("null")
            case "one":
                guard targets.count == 1 else { throw bad("data \"one\" with \(targets.count) edges") }
                data.append(edgeText.arena.bytes(in: targets.first!.text))
            case "many", "empty": appendJoined(targets.lazy.map(\.text), of: edgeText.arena, "[", "]", to: &data)
            case "absent": break
            default: throw bad("data is not absent, null, one, empty or many")
            }
            if data.count > 0 { data.withBytes { object.append("data", json: $0) } }
            var rest = JSONObject()
            if let links = cell("links") { rest.append("links", links) }
            if let meta = cell("meta") { rest.append("meta", meta) }
            if case .object(let o)? = cell("_other") { for m in o.members { rest.append(m.key, m.value) } }
            object.append(rest)
            // `"name":{…}`, kept for the resource's relationships object, in row order.
            let start = out.text.count
            NormalizedRecordReader.Line.appendName(name, to: &out.text)
            out.text.append(UInt8(ascii: "{"))
            out.text.append(object.text.bytes(in: 0..<object.text.count))
            out.text.append(UInt8(ascii: "}"))
            out.members[type, default: [:]][from, default: []].append(start..<out.text.count)
        }
        return out
    }
}

/// The relationships of a tables directory's resources, as JSON text: for each resource (by
/// type and row), its `"name":{…}` members in `text`, in the order of their rows.
final class JoinedRelationships {
    var text = ByteArena(capacity: 1 << 16)
    var members: [String: [Int: [Range<Int>]]] = [:]
}

/// The texts at `ranges` of `source`, comma-separated between `open` and `close`, at the end
/// of `text` (a JSON object's members or an array's elements).
private func appendJoined(_ ranges: some Sequence<Range<Int>>, of source: borrowing ByteArena, _ open: StaticString, _ close: StaticString, to text: inout ByteArena) {
    text.append(open)
    for (i, r) in ranges.enumerated() {
        if i > 0 { text.append(UInt8(ascii: ",")) }
        text.append(source.bytes(in: r))
    }
    text.append(close)
}
