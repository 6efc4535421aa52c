@_exported import TesseraCore
@_exported import TesseraCodecs
