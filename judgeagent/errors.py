"""The one exception type users see: a problem with their input, stated in one line."""


class JudgeAgentError(Exception):
    """A user-facing error. The CLI prints `error: <message>` and exits non-zero, with no traceback."""


class Interrupted(Exception):
    """Ctrl-C, with what to do next. The CLI prints `aborted: <message>` and exits 130."""


class BudgetExceeded(JudgeAgentError):
    """The run spent its `max_cost`: it stops like a crash (everything so far is kept) and resumes."""
