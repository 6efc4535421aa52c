/// Tessera's version, as `tessera --version` and the server's `/health` report it.
public let tesseraVersion = "0.5.0"
