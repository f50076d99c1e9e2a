"""Write docs/reproduce.md from the recipe catalogue (judgeagent/recipes), so the two cannot drift.

    .venv/bin/python scripts/reproduce_reference.py          # rewrite docs/reproduce.md
    .venv/bin/python scripts/reproduce_reference.py --check  # exit 1 if it differs (tests/test_recipes.py)
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judgeagent.recipes.docs import render_docs  # noqa: E402

DOC = ROOT / "docs" / "reproduce.md"


def main(argv: list[str]) -> int:
    text = render_docs()
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC} is out of date: run scripts/reproduce_reference.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
