"""Lets `python cli.py ...` work from a checkout without installing."""
from judgeagent.cli import main

raise SystemExit(main())
