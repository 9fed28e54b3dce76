#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds Pacer's GNOME Shell extension for one module system from the one source in src/.

  build.py --api esm|legacy --bus-name NAME [--localedir DIR] --out DIR

esm: GNOME Shell 45 to 50 (ES modules): src/extension.js and the modules as written.
legacy: GNOME Shell 43 and 44 (imports.*): src/extension-legacy.js as extension.js, and each
module's `import {…} from './x.js'` and `export` turned into what legacy imports read.

DIR gets metadata.json, the JavaScript, the State1 interface XML and Pacer's panel icons:
the folder gnome-shell loads (and `gnome-extensions pack` zips)."""

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
UUID = "pacer@pacerapp.github.io"
MODULES = ["state.js", "widgets.js", "menu.js", "gnomeToggle.js", "ui.js"]
SHELL_VERSIONS = {"legacy": ["43", "44"], "esm": ["45", "46", "47", "48", "49", "50"]}
ENTRY = {"legacy": "extension-legacy.js", "esm": "extension.js"}

IMPORT = re.compile(r"^import \{([\w, ]+)\} from '\./(\w+)\.js';$")
EXPORT = re.compile(r"^export (function|class|const) (\w+)")


class BuildError(Exception):
    pass


def to_legacy(name: str, source: str) -> str:
    """One ES module as a legacy module: its relative imports and exports rewritten, any
    other import or export refused (it would not load in 43 or 44)."""
    lines = []
    exported = []
    # A class expression is a statement that ends with a semicolon: at the first line
    # after it that closes a top-level block.
    open_class = False
    for number, line in enumerate(source.splitlines(), 1):
        if open_class and line == "}":
            lines.append("};")
            open_class = False
            continue
        if match := IMPORT.match(line):
            names, module = match.groups()
            lines.append(
                f"const {{{names}}} = imports.misc.extensionUtils"
                f".getCurrentExtension().imports.{module};"
            )
        elif match := EXPORT.match(line):
            kind, symbol = match.groups()
            exported.append(symbol)
            rest = line[match.end():]
            # A legacy module exports its top-level `var`s and functions.
            if kind == "function":
                lines.append(f"function {symbol}{rest}")
            elif kind == "class":
                lines.append(f"var {symbol} = class {symbol}{rest}")
                open_class = True
            else:
                lines.append(f"var {symbol}{rest}")
        elif line.startswith(("import ", "export ")):
            raise BuildError(f"src/{name}:{number}: no legacy form for: {line}")
        else:
            lines.append(line)
    if open_class:
        raise BuildError(f"src/{name}: no line '}}' ends the last exported class")
    # What other modules import (GNOME Shell's lint reads this comment).
    header = f"/* exported {', '.join(exported)} */" if exported else None
    return "\n".join(([header] if header else []) + lines) + "\n"


def metadata(api: str, bus_name: str, localedir: str | None) -> dict:
    with open(HERE / "metadata.json", encoding="utf-8") as file:
        data = json.load(file)
    data["shell-version"] = SHELL_VERSIONS[api]
    data["bus-name"] = bus_name
    if localedir:
        data["localedir"] = localedir
    return data


def build(api: str, bus_name: str, localedir: str | None, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    (out / "icons").mkdir(parents=True)
    with open(out / "metadata.json", "w", encoding="utf-8") as file:
        json.dump(metadata(api, bus_name, localedir), file, indent=2)
        file.write("\n")
    shutil.copyfile(HERE / "src" / ENTRY[api], out / "extension.js")
    for module in MODULES:
        source = (HERE / "src" / module).read_text(encoding="utf-8")
        if api == "legacy":
            source = to_legacy(module, source)
        (out / module).write_text(source, encoding="utf-8")
    shutil.copyfile(DATA / "io.github.pacerapp.Pacer.State1.xml",
                    out / "io.github.pacerapp.Pacer.State1.xml")
    for icon in (DATA / "icons/hicolor/symbolic/apps").glob("*.svg"):
        shutil.copyfile(icon, out / "icons" / icon.name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=sorted(SHELL_VERSIONS), required=True)
    parser.add_argument("--bus-name", required=True,
                        help="Pacer's application id, whose State1 the extension follows")
    parser.add_argument("--localedir", help="where Pacer's translations are installed")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        build(args.api, args.bus_name, args.localedir, args.out)
    except (BuildError, OSError) as error:
        print(f"build.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
