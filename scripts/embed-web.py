#!/usr/bin/env python3
"""Rewrites the #embed table in Sources/CTesseraWeb/web.c from the files in
Sources/CTesseraWeb/Web (run it after adding or removing a page file; a test checks
that the two agree)."""
import re
from pathlib import Path

repo = Path(__file__).resolve().parents[1]
web = repo / "Sources/CTesseraWeb/Web"
table = repo / "Sources/CTesseraWeb/web.c"
names = sorted(path.name for path in web.iterdir() if path.is_file() and not path.name.startswith("."))


def symbol(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "_", name.lower())


text = table.read_text()
head = text[: text.index("static const unsigned char")]
tail = text[text.index("const struct tessera_web_file *tessera_web_file") :]
arrays = "".join(
    f'static const unsigned char {symbol(name)}[] = {{\n#embed "Web/{name}"\n}};\n' for name in names)
entries = "".join(f'    WEB_FILE({symbol(name)}, "{name}"),\n' for name in names)
table.write_text(head + arrays + "\nstatic const struct tessera_web_file files[] = {\n" + entries + "};\n\n" + tail)
print(f"{len(names)} files in {table.relative_to(repo)}")
