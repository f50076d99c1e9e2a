"""How untyped the package's data is: `dict[str, Any]` per 1,000 lines of code, per folder and in all.

    .venv/bin/python bench/untyped.py

Issue 43's measure (22.8 per 1,000 lines when it was filed; the target is 6, against 3.4-5.2 in inspect_ai,
pydantic_evals and lm-evaluation-harness). Lines of code: non-blank lines that are not comments.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "judgeagent"
PATTERN = re.compile(r"dict\[str,\s*Any\]")


def main() -> None:
    hits: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for path in ROOT.rglob("*.py"):
        folder = str(path.parent.relative_to(ROOT.parent))
        text = path.read_text(encoding="utf-8")
        lines[folder] += sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))
        hits[folder] += len(PATTERN.findall(text))
    total_hits, total_lines = sum(hits.values()), sum(lines.values())
    for folder in sorted(lines, key=lambda f: -hits[f] / max(lines[f], 1)):
        if hits[folder]:
            print(f"{folder:<45} {hits[folder]:>5} in {lines[folder]:>6} lines: {1000 * hits[folder] / lines[folder]:5.1f}")
    print(f"RATIO dict[str, Any] per 1,000 lines: {1000 * total_hits / total_lines:.1f} ({total_hits} in {total_lines} "
          "lines; target <= 6)")


if __name__ == "__main__":
    main()
