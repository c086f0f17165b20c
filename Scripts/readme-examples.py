#!/usr/bin/env python3
"""Writes Examples/Sources/readme-badge/main.swift and readme-toolbar/main.swift from the README's
library page: each Swift block there (but the package manifest) once as top-level code and once
inside a function, so that `make examples` compiles them exactly as written, both ways. Run by
`make examples`; a test checks that the files match the README."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
library = readme[readme.index("## The library"):readme.index("## Reliability")]
blocks = [b for b in re.findall(r"```swift\n(.*?)```", library, re.S) if "PackageDescription" not in b]
names = ["readme-badge", "readme-toolbar"]
if len(blocks) != len(names):
    sys.exit(f"readme-examples: expected {len(names)} Swift blocks in the README's library page, found {len(blocks)}")

def render(block: str) -> str:
    lines = block.rstrip("\n").split("\n")
    imports = [l for l in lines if l.startswith("import ")]
    body = [l for l in lines if not l.startswith("import ")]
    while body and not body[0].strip():
        body.pop(0)
    indented = ["    " + l if l.strip() else "" for l in body]
    return "\n".join(
        ["// Generated from README.md by Scripts/readme-examples.py (make examples): the README's code,",
         "// compiled as written, inside a function and as top-level code. Not run by the tests.", ""]
        + imports + ["", "/// The same code inside a function.", "func readmeCodeInAFunction() throws {"] + indented + ["}", ""]
        + body) + "\n"

for name, block in zip(names, blocks):
    path = root / "Examples" / "Sources" / name / "main.swift"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render(block)
    if "--check" in sys.argv:
        if not path.exists() or path.read_text() != text:
            sys.exit(f"readme-examples: {path} does not match README.md (run make examples)")
    else:
        path.write_text(text)
