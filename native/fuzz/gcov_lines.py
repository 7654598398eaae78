"""The lines of native/src a run reached, file by file, from gcc's counts (gcov).

    python native/fuzz/gcov_lines.py BUILD_FOLDER [--under native/src/bind] [--json OUT]

BUILD_FOLDER holds the objects of a core built with ``--coverage`` (``TABLEZOO_COVERAGE=1``,
as ``make hostile-fuzz`` builds it) and the ``.gcda`` counts its runs wrote. A header's
templates are compiled into several objects: a line counts as reached when any object reached
it, and as a line at all when any object has code for it. Prints a table (file, lines reached,
lines with code, share) and the total; ``--json`` writes the same.

The objects of the bindings (``native/src/bind``) are read whole, with every header of the
core and the games they compile in. The core's own translation units (``[core]`` of
native/sources.txt) are compiled once for each of the two extension modules into the same
object, whose notes are then the second compile's: gcov refuses the first's counts ("stamp
mismatch"), and they are skipped with a line on standard error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def counts(build: Path) -> dict[str, dict[int, int]]:
    """{source file under the repository: {line: the highest count of any object}}."""
    lines: dict[str, dict[int, int]] = {}
    for gcda in sorted(build.rglob("*.gcda")):
        run = subprocess.run(
            ["gcov", "--json-format", "--stdout", str(gcda.with_suffix(".o"))],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if run.returncode != 0:
            # the core's own files are compiled once for each extension module into the same
            # object, and the notes are the last compile's: counts of the other are not read
            print(f"skipped {gcda}: {run.stderr.strip().splitlines()[-1]}", file=sys.stderr)
            continue
        for document in run.stdout.splitlines():  # one JSON document per object
            if not document.strip():
                continue
            for entry in json.loads(document)["files"]:
                path = Path(entry["file"])
                path = (ROOT / path).resolve() if not path.is_absolute() else path.resolve()
                try:
                    name = str(path.relative_to(ROOT))
                except ValueError:  # pybind11's, numpy's, the standard library's headers
                    continue
                seen = lines.setdefault(name, {})
                for line in entry["lines"]:
                    number = line["line_number"]
                    seen[number] = max(seen.get(number, 0), line["count"])
    return lines


def main(argv: list[str] | None = None) -> dict[str, list[int]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, help="the build folder of a --coverage core, after its runs")
    parser.add_argument("--under", default="native/src", help="report the files under this folder")
    parser.add_argument("--json", type=Path, default=None, help="also write {file: [reached, lines]} here")
    args = parser.parse_args(argv)
    if not any(args.build.rglob("*.gcda")):
        sys.exit(f"no .gcda counts under {args.build}: build the core with TABLEZOO_COVERAGE=1, then run it")
    table = {
        name: [sum(1 for c in seen.values() if c > 0), len(seen)]
        for name, seen in sorted(counts(args.build).items())
        if name.startswith(args.under.rstrip("/") + "/") and seen
    }
    width = max((len(name) for name in table), default=4)
    print(f"{'file':<{width}}  reached  lines  share")
    for name, (reached, total) in table.items():
        print(f"{name:<{width}}  {reached:>7}  {total:>5}  {reached / total:6.1%}")
    reached, total = sum(r for r, _ in table.values()), sum(t for _, t in table.values())
    print(f"{'total':<{width}}  {reached:>7}  {total:>5}  {reached / max(total, 1):6.1%}")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n")
    return table


if __name__ == "__main__":
    main()
