// The TesseraVideoTests target is declared in Package.swift; SwiftPM refuses a target without
// sources, so this keeps a fresh checkout building until the video tests land.
import TesseraVideo
