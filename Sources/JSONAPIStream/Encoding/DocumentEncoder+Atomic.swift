extension DocumentEncoder {
    /// `atomic:results` as the graph keeps it (each result's resource as its identifier),
    /// written with each result's resource in full.
    func writeResults(_ all: UnsafeRawBufferPointer, _ value: Range<Int>, _ writer: ResourceWriter, _ parts: ResourceParts) throws(JSONAPIError) {
        let graph = self.graph
        out.write(byte: UInt8(ascii: "["))
        for (i, element) in StoredJSON.elements(all, value).enumerated() {
            if i > 0 { out.write(byte: UInt8(ascii: ",")) }
            guard all[element.lowerBound] == UInt8(ascii: "{") else {
                out.write(UnsafeRawBufferPointer(rebasing: all[element]))
                continue
            }
            out.write(byte: UInt8(ascii: "{"))
            for (k, member) in StoredJSON.members(all, element).enumerated() {
                if k > 0 { out.write(byte: UInt8(ascii: ",")) }
                out.write(UnsafeRawBufferPointer(rebasing: all[member.name]))
                out.write(byte: UInt8(ascii: ":"))
                let data = StoredJSON.nameEquals(all, member.name, staticBytes("data")) ? StoredJSON.decode(all, member.value) : .null
                if let type = data["type"]?.stringValue,
                    let resource = graph[ResourceIdentifier(type: type, id: data["id"]?.stringValue, lid: data["lid"]?.stringValue)]
                {
                    try writeResource(resource.row, writer, parts)
                } else {
                    out.write(UnsafeRawBufferPointer(rebasing: all[member.value]))
                }
            }
            out.write(byte: UInt8(ascii: "}"))
        }
        out.write(byte: UInt8(ascii: "]"))
    }
}
