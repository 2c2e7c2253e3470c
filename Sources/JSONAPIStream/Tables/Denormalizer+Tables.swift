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
                if let r = relationships.texts[type]?[k + 1] {
                    relationships.text.withBytes { all in line.append("relationships", json: UnsafeRawBufferPointer(rebasing: all[r])) }
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

    /// Each resource's relationships object as JSON text, by type and row: `_relationships`
    /// rows with the `_edges` rows that follow them in the same order. Both tables are read a
    /// row at a time; what is kept is text (each edge's resource identifier, then each
    /// resource's relationships object), not trees.
    private func joinedRelationships(_ dir: TableDirectory) throws(JSONAPIError) -> JoinedRelationships {
        let relationships = dir.fixed["_relationships"]!
        let edges = dir.fixed["_edges"]!
        let r = relationships.columns.map(\.name)
        let e = edges.columns.map(\.name)
        // The edges: each one's resource identifier as text, and what ties it to its
        // relationship row (from_type, from_row, relationship).
        var edgeText = JSONTextWriter()
        var edgeList: [(owner: JSONValue, text: Range<Int>)] = []
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
            edgeList.append((.array([ecell("from_type") ?? .null, ecell("from_row") ?? .null, ecell("relationship") ?? .null]), start..<edgeText.arena.count))
        }
        var next = 0
        let out = JoinedRelationships()
        // The relationships object being written, and whose it is.
        var current: (type: String, row: Int)?
        var object = JSONTextWriter()
        func close() {
            guard let c = current else { return }
            object.arena.append(UInt8(ascii: "}"))
            let start = out.text.count
            object.arena.withBytes { out.text.append($0) }
            out.texts[c.type, default: [:]][c.row] = start..<out.text.count
            current = nil
        }
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
            let owner = JSONValue.array([cell("from_type") ?? .null, cell("from_row") ?? .null, cell("relationship") ?? .null])
            for edge in edgeList[next..<next + count] where edge.owner != owner {
                throw bad("its edges are not the next rows of \(edges.file)")
            }
            let targets = edgeList[next..<next + count].map(\.text)
            next += count
            // This relationship's object, as text.
            var member = JSONTextWriter()
            member.arena.append(UInt8(ascii: "{"))
            var first = true
            func key(_ k: String) {
                if !first { member.arena.append(UInt8(ascii: ",")) }
                first = false
                member.writeString(k)
                member.arena.append(UInt8(ascii: ":"))
            }
            switch cell("data")?.stringValue {
            case "null":
                key("data")
                member.arena.append("null")
            case "one":
                guard targets.count == 1 else { throw bad("data \"one\" with \(targets.count) edges") }
                key("data")
                member.arena.append(edgeText.arena.bytes(in: targets[0]))
            case "many", "empty":
                key("data")
                member.arena.append(UInt8(ascii: "["))
                for (i, t) in targets.enumerated() {
                    if i > 0 { member.arena.append(UInt8(ascii: ",")) }
                    member.arena.append(edgeText.arena.bytes(in: t))
                }
                member.arena.append(UInt8(ascii: "]"))
            case "absent": break
            default: throw bad("data is not absent, null, one, empty or many")
            }
            var rest = JSONObject()
            if let links = cell("links") { rest.append("links", links) }
            if let meta = cell("meta") { rest.append("meta", meta) }
            if case .object(let o)? = cell("_other") { for m in o.members { rest.append(m.key, m.value) } }
            for m in rest.members {
                key(m.key)
                member.write(m.value)
            }
            member.arena.append(UInt8(ascii: "}"))
            // A resource's relationship rows come one after another: a row of another
            // resource closes the object being written. (Should one come back later, its
            // object is written again and replaces the first, as the dictionary did.)
            if let c = current, c.type != type || c.row != from { close() }
            if current == nil {
                current = (type, from)
                object.arena.truncate(to: 0)
                object.arena.append(UInt8(ascii: "{"))
                if let earlier = out.texts[type]?[from] {
                    // Rows of this resource seen before: its object goes on from them.
                    object.arena.append(out.text.bytes(in: earlier.lowerBound + 1..<earlier.upperBound - 1))
                }
            }
            if object.arena.count > 1 { object.arena.append(UInt8(ascii: ",")) }
            object.writeString(name)
            object.arena.append(UInt8(ascii: ":"))
            member.arena.withBytes { object.arena.append($0) }
        }
        close()
        return out
    }
}

/// The relationships objects of a tables directory's resources, as JSON text: ranges into
/// `text`, by type and row.
final class JoinedRelationships {
    var text = ByteArena(capacity: 1 << 16)
    var texts: [String: [Int: Range<Int>]] = [:]
}
