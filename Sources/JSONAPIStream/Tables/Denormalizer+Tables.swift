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
            for (k, row) in try dir.rows(of: table).enumerated() {
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
                if let r = relationships[type]?[k + 1] { resource.append("relationships", .object(r)) }
                if let links = cell("_links") { resource.append("links", links) }
                if let meta = cell("_meta") { resource.append("meta", meta) }
                for m in other.members where m.key != "attributes" { resource.append(m.key, m.value) }
                try acceptResourceLine(resource)
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

    /// Each resource's relationships object, by type and row: `_relationships` rows with the
    /// `_edges` rows that follow them in the same order.
    private func joinedRelationships(_ dir: TableDirectory) throws(JSONAPIError) -> [String: [Int: JSONObject]] {
        let relationships = dir.fixed["_relationships"]!
        let edges = dir.fixed["_edges"]!
        let r = relationships.columns.map(\.name)
        let e = edges.columns.map(\.name)
        let edgeRows = try dir.rows(of: edges)
        var next = 0
        var out: [String: [Int: JSONObject]] = [:]
        for (k, row) in try dir.rows(of: relationships).enumerated() {
            func cell(_ name: String) -> JSONValue? { r.firstIndex(of: name).flatMap { row[$0] } }
            func bad(_ what: String) -> JSONAPIError {
                .input("\(dir.path)/\(relationships.file), row \(k + 1): \(what) (not a table written by normalize --split-by-type)")
            }
            guard let type = cell("from_type")?.stringValue, let name = cell("relationship")?.stringValue,
                case .number(let rowNumber)? = cell("from_row"), let from = Int(rowNumber.text),
                case .number(let countNumber)? = cell("count"), let count = Int(countNumber.text), count >= 0
            else { throw bad("no from_type, from_row, relationship or count") }
            guard next + count <= edgeRows.count else { throw bad("fewer edges than its count") }
            var targets: [JSONValue] = []
            for edge in edgeRows[next..<next + count] {
                func ecell(_ name: String) -> JSONValue? { e.firstIndex(of: name).flatMap { edge[$0] } }
                guard ecell("from_type") == cell("from_type"), ecell("from_row") == cell("from_row"), ecell("relationship") == cell("relationship") else {
                    throw bad("its edges are not the next rows of \(edges.file)")
                }
                var identifier = JSONObject()
                identifier.append("type", ecell("to_type") ?? .null)
                if let id = ecell("to_id") { identifier.append("id", id) }
                if let lid = ecell("to_lid") { identifier.append("lid", lid) }
                if let meta = ecell("meta") { identifier.append("meta", meta) }
                if case .object(let o)? = ecell("_other") { for m in o.members { identifier.append(m.key, m.value) } }
                targets.append(.object(identifier))
            }
            next += count
            var object = JSONObject()
            switch cell("data")?.stringValue {
            case "null": object.append("data", .null)
            case "one":
                guard targets.count == 1 else { throw bad("data \"one\" with \(targets.count) edges") }
                object.append("data", targets[0])
            case "many", "empty": object.append("data", .array(targets))
            case "absent": break
            default: throw bad("data is not absent, null, one, empty or many")
            }
            if let links = cell("links") { object.append("links", links) }
            if let meta = cell("meta") { object.append("meta", meta) }
            if case .object(let o)? = cell("_other") { for m in o.members { object.append(m.key, m.value) } }
            out[type, default: [:]][from, default: JSONObject()].append(name, .object(object))
        }
        return out
    }
}
