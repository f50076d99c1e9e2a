"""The sandbox's verdict path by hand (`_Run._verdict`, `_why_ended`, `_last_line` in protocols/dynaeval/sandbox.py),
written to kill the surviving mutants of scripts/mutants.py (issue 47). The bubblewrap tests reach these branches
only through real code under real limits, so most of them see one branch each; here each branch is driven with
real ended processes (their exit statuses are the kernel's) and cgroup counter files written to a folder, the
same files `walls.Cgroups` reads under /sys/fs/cgroup. No sandbox is started: fast, and no bubblewrap needed."""
from __future__ import annotations

import json
import signal
import subprocess

import pytest

from judgeagent.protocols.dynaeval import walls
from judgeagent.protocols.dynaeval.sandbox import MB, SandboxLimits, _last_line, _Run, _Side

LIMITS = SandboxLimits(timeout_s=3.0, memory_mb=100)
"""CPU limit int(3.0) + 1 = 4 s, so the kernel's count confirms a timeout from 3.9 s on; memory from 50 MB."""


def _ended(shell: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(["sh", "-c", shell], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    process.wait()
    return process


def _cgroups(tmp_path, cpu_s: float | None = None, peak_mb: int | None = None, failcnt: int = 0,
             oom_kills: int = 0) -> walls.Cgroups:
    groups = walls.Cgroups()
    if cpu_s is not None:
        groups.cpuacct = tmp_path / "cpuacct"
        groups.cpuacct.mkdir(exist_ok=True)
        (groups.cpuacct / "cpuacct.usage").write_text(str(int(cpu_s * 1e9)))
    if peak_mb is not None:
        groups.memory = tmp_path / "memory"
        groups.memory.mkdir(exist_ok=True)
        (groups.memory / "memory.max_usage_in_bytes").write_text(str(peak_mb * MB))
        (groups.memory / "memory.failcnt").write_text(str(failcnt))
        (groups.memory / "memory.oom_control").write_text(f"oom_kill_disable 0\nunder_oom 0\noom_kill {oom_kills}\n")
    return groups


def verdict(tmp_path, said: object, *, harness_code: int = 0, err: bytes = b"", candidate: str = "exit 0",
            cpu_s: float | None = None, peak_mb: int | None = None, printed: bytes | None = None, **memory: int):
    """What `_verdict` makes of a harness that printed `said` (a JSON line, or `printed` as is) and ended with
    `harness_code`, its candidate having run `candidate` under the given cgroup counters."""
    run = _Run(LIMITS, walled=False, cwd=str(tmp_path))
    out = printed if printed is not None else b"some line the test printed\n" + json.dumps(said).encode() + b"\n"
    harness = _Side(_ended(f"exit {harness_code}"), walls.Cgroups(), out=bytearray(out), err=bytearray(err))
    side = _Side(_ended(candidate), _cgroups(tmp_path, cpu_s, peak_mb, **memory))
    return run._verdict(side, harness)


def test_what_the_harness_says_is_the_verdict_when_it_ends_well(tmp_path):
    assert verdict(tmp_path, {"status": "passed", "detail": "passed", "claim": None}) == ("passed", "passed")
    assert verdict(tmp_path, {"status": "failed", "detail": "assert 1 == 2", "claim": None}) == \
        ("failed", "assert 1 == 2")
    # the last line counts, not an earlier one
    two = b'{"status": "passed", "detail": "passed"}\n{"status": "failed", "detail": "second"}\n'
    assert verdict(tmp_path, None, printed=two) == ("failed", "second")
    # bytes that are not UTF-8 before the verdict line (what the test printed) do not spoil it
    assert verdict(tmp_path, None, printed=b"\xff\xfe\n" + two) == ("failed", "second")


def test_a_harness_that_ended_badly_or_said_nothing_usable_is_an_error_in_its_own_stderr_words(tmp_path):
    passed = {"status": "passed", "detail": "passed", "claim": None}
    assert verdict(tmp_path, passed, harness_code=1, err=b"first\nTraceback: boom\n") == ("error", "Traceback: boom")
    assert verdict(tmp_path, passed, harness_code=3) == ("error", "the test harness ended with code 3")
    assert verdict(tmp_path, None, printed=b"") == ("error", "the test harness ended with code 0")
    assert verdict(tmp_path, None, printed=b"not json\n") == ("error", "the test harness ended with code 0")
    assert verdict(tmp_path, ["passed"]) == ("error", "the test harness ended with code 0")
    assert verdict(tmp_path, {"status": "fine", "detail": "passed"}, err=b"said: fine\n") == ("error", "said: fine")
    assert verdict(tmp_path, {"detail": "passed"}) == ("error", "the test harness ended with code 0")


def test_the_audit_hooks_refusal_is_an_error_with_its_words(tmp_path):
    said = {"status": "failed", "detail": "write to /etc/passwd refused", "claim": "forbidden"}
    assert verdict(tmp_path, said) == ("error", "write to /etc/passwd refused")
    assert verdict(tmp_path, {**said, "claim": None}) == ("failed", "write to /etc/passwd refused")


def test_a_claimed_memory_error_is_memory_only_where_the_cgroup_counted_it(tmp_path):
    said = {"status": "error", "detail": "MemoryError", "claim": "memory"}
    assert verdict(tmp_path, said) == ("error", "MemoryError raised (not confirmed by a memory cgroup)")
    assert verdict(tmp_path, said, peak_mb=10) == ("error", "MemoryError raised (not confirmed by a memory cgroup)")
    assert verdict(tmp_path, said, peak_mb=50) == ("memory", "memory limit reached")  # half the limit, at its peak
    assert verdict(tmp_path, said, peak_mb=49) == ("error", "MemoryError raised (not confirmed by a memory cgroup)")
    assert verdict(tmp_path, said, peak_mb=1, failcnt=1) == ("memory", "memory limit reached")
    assert verdict(tmp_path, said, peak_mb=1, oom_kills=1) == ("memory", "memory limit reached")
    # a claim of memory on a failed status is the failure, not a label the code chose
    assert verdict(tmp_path, {**said, "status": "failed"}, peak_mb=99) == ("failed", "MemoryError")
    # an error without the claim is the error as said
    assert verdict(tmp_path, {**said, "claim": None}, peak_mb=99) == ("error", "MemoryError")


def test_a_candidate_that_ended_is_labelled_from_its_exit_status_and_the_kernels_cpu_count(tmp_path):
    ended = {"status": "error", "detail": "the code's process ended", "claim": None}
    assert verdict(tmp_path, ended, candidate="exit 3") == ("error", "the code's process ended (exit code 3)")
    for killed in ("kill -9 $$", "kill -XCPU $$", f"exit {128 + signal.SIGKILL}", f"exit {128 + signal.SIGXCPU}"):
        assert _fresh(tmp_path, ended, killed, 3.9) == ("timeout", "CPU time limit reached"), killed
    assert _fresh(tmp_path, ended, "kill -9 $$", 3.9) == ("timeout", "CPU time limit reached")
    assert _fresh(tmp_path, ended, "kill -9 $$", 3.85) == \
        ("error", "the code's process ended by signal 9 (no CPU limit reached by the kernel's count)")
    # bwrap passes the signal on as 128 + its number: the same signal is named
    assert _fresh(tmp_path, ended, f"exit {128 + signal.SIGXCPU}", 1.0) == \
        ("error", f"the code's process ended by signal {int(signal.SIGXCPU)} (no CPU limit reached by the kernel's "
                  "count)")
    assert _fresh(tmp_path, ended, f"exit {128 + signal.SIGKILL}", 4.0) == ("timeout", "CPU time limit reached")
    assert verdict(tmp_path, ended, candidate="kill -9 $$") == \
        ("error", "the code's process ended by SIGXCPU or SIGKILL (not confirmed by a cpuacct cgroup)")
    # another signal, with any CPU time, is the process's end, not a timeout
    assert _fresh(tmp_path, ended, "kill -TERM $$", 9.0) == ("error", f"the code's process ended (exit code "
                                                                       f"{-int(signal.SIGTERM)})")
    # a timeout outranks memory; memory outranks the plain end
    assert _fresh(tmp_path, ended, "kill -9 $$", 5.0, peak_mb=99) == ("timeout", "CPU time limit reached")
    assert _fresh(tmp_path, ended, "exit 1", None, peak_mb=99) == ("memory", "memory limit reached")


def _fresh(tmp_path, said, candidate, cpu, peak_mb=None):
    return verdict(tmp_path, said, candidate=candidate, cpu_s=cpu, peak_mb=peak_mb)


def test_the_last_line_is_the_tail_clipped_to_200_characters():
    assert _last_line(bytearray(b"one\ntwo\n\n")) == "two"
    assert _last_line(bytearray(b"")) == ""
    assert _last_line(bytearray(b"x" * 300 + b"\n")) == "x" * 200
    assert _last_line(bytearray(b"bad \xff byte")) == "bad \ufffd byte"


@pytest.mark.parametrize("code", [0, 1])
def test_a_harness_exit_status_other_than_0_discards_even_a_pass(tmp_path, code):
    said = {"status": "passed", "detail": "passed", "claim": None}
    expected = ("passed", "passed") if code == 0 else ("error", "the test harness ended with code 1")
    assert verdict(tmp_path, said, harness_code=code) == expected
