/// A JSON object on one line, keys in the order given (the order the documentation lists them).
struct JSONLine {
    enum Value {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case null
        case raw(String)
    }

    let fields: [(String, Value)]

    init(_ fields: [(String, Value)]) { self.fields = fields }

    var rendered: String {
        "{" + fields.map { "\(Self.quoted($0.0)):\(Self.render($0.1))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .string(let string): quoted(string)
        case .int(let int): String(int)
        case .double(let double): double.isFinite ? String(double) : "null"
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .raw(let json): json
        }
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
