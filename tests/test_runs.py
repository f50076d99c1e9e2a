"""Run folders under damage and contention: read commands never write, one writer at a time.

Runs go through the CLI against scripted loopback servers (tests/scripted.py), on real benchmark files.
"""
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.cli import main
from judgeagent.errors import JudgeAgentError
from judgeagent.protocols.judgeagent.feedback import read_feedback
from judgeagent.runs import load_run
from tests.conftest import DATA
from tests.scripted import Roles, Script

MHR = DATA / "multihop_rag" / "small.questions.jsonl"


@pytest.fixture
def roles():
    script = Script(target_right={"Federal", "Google"})
    for item in load_benchmark(MHR).items:
        script.golds[item.question] = item.gold
    with Roles(script) as r:
        yield r


def cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def evaluate_args(config, run_dir, limit=25, judge=None):
    args = ["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark", MHR, "--no-extension",
            "--limit", limit, "--run-dir", run_dir, "--config", config, "--no-cache", "-q"]
    return args + (["--judge", judge] if judge else [])


def assert_one_line_error(code, err, needle):
    """Exit 1 with one `error:` line (warnings may precede it) and no traceback."""
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 1 and len(errors) == 1 and needle in errors[0] and "Traceback" not in err, err


def record_ids(run):
    return [json.loads(line)["record_id"] for line in (run / "records.jsonl").read_text().splitlines()]


def test_damage_inside_a_file_is_reported_by_every_command_and_never_trimmed(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    assert cli(evaluate_args(config, run), capsys)[0] == 0
    path = run / "records.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 25
    lines[5] = lines[5][:40] + b"\n"  # line 6 of 25 cut short, the lines after it intact
    damaged = b"".join(lines)
    path.write_bytes(damaged)
    for command in (["report", run], ["validate", run, "--config", config, "--no-cache"],
                    evaluate_args(config, run), ["evaluate", "--resume", run, "--config", config, "-q"]):
        code, _, err = cli(command, capsys)
        assert_one_line_error(code, err, f"{path}:6: damaged line")
        assert path.read_bytes() == damaged, command


def test_a_torn_last_line_is_skipped_by_readers_and_trimmed_only_by_evaluate(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    roles.target.fail_after = 7
    code, _, err = cli(evaluate_args(config, run), capsys)
    assert_one_line_error(code, err, "HTTP 400")
    path = run / "records.jsonl"
    done = len(path.read_text().splitlines())
    with open(path, "ab") as f:
        f.write(b'{"record_id": "b1-base-mhr')  # a kill in the middle of an append
    torn = path.read_bytes()
    assert len(load_run(run).records) == done and path.read_bytes() == torn
    code, _, err = cli(["report", run], capsys)
    assert_one_line_error(code, err, "is unfinished")
    assert path.read_bytes() == torn
    roles.target.fail_after = None
    assert cli(evaluate_args(config, run), capsys)[0] == 0
    ids = record_ids(run)
    assert len(ids) == len(set(ids)) == 25
    assert path.read_bytes().startswith(torn[: torn.rindex(b"\n") + 1])  # what was whole is kept


def test_a_second_writer_is_refused_while_readers_read(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    roles.target.latency = 0.3
    first: list[int] = []
    writer = threading.Thread(target=lambda: first.append(main([str(a) for a in evaluate_args(config, run)])))
    writer.start()
    deadline = time.monotonic() + 30
    while not ((run / "records.jsonl").exists() and (run / "records.jsonl").read_text()):
        assert time.monotonic() < deadline and writer.is_alive()
        time.sleep(0.05)
    code, _, err = cli(evaluate_args(config, run), capsys)
    assert_one_line_error(code, err, f"being written by another judgeagent process (pid {os.getpid()})")
    assert 0 < len(load_run(run).records) < 25  # a reader reads the run being written
    code, _, err = cli(["report", run], capsys)
    assert_one_line_error(code, err, "is unfinished")
    writer.join(60)
    assert first == [0]
    ids = record_ids(run)
    assert len(ids) == len(set(ids)) == 25 and roles.target.counts["requests"] == 25
    assert json.loads((run / "manifest.json").read_text())["status"] == "finished"


def test_a_lock_file_left_by_a_dead_process_is_no_obstacle(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    roles.target.fail_after = 3
    assert cli(evaluate_args(config, run), capsys)[0] == 1
    dead = subprocess.Popen(["true"])
    dead.wait()
    (run / "writer.lock").write_text(f"{dead.pid}\n")
    roles.target.fail_after = None
    assert cli(evaluate_args(config, run), capsys)[0] == 0
    assert len(record_ids(run)) == 25


def test_a_run_killed_while_writing_its_first_manifest_starts_with_the_same_command(roles, tmp_path, capsys):
    """SIGKILL between writing the manifest's temporary file and renaming it leaves the lock and that file (no cleanup
    runs): the folder is that run's, begun, not "a folder with other files" that the same command must refuse."""
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    dead = subprocess.Popen(["true"])
    dead.wait()
    run.mkdir()
    (run / "writer.lock").write_text(f"{dead.pid}\n")
    (run / f".manifest.json.tmp-{dead.pid}").write_text('{"format": "judgeagent.run", "format_')
    code, _, err = cli(evaluate_args(config, run, limit=5), capsys)
    assert code == 0, err
    assert len(record_ids(run)) == 5
    assert not list(run.glob(".*.tmp-*"))  # the dead writer's half file went when the run was opened


def test_stale_temporaries_go_without_a_traceback_whatever_their_names(tmp_path):
    """A name whose pid no process can have (`os.kill` raised OverflowError: open_run's traceback) is a dead writer's;
    a non-ASCII digit is no pid (int() of it failed); found in review, stop 69."""
    from judgeagent.files import remove_stale

    huge, odd, live = (tmp_path / ".a.tmp-99999999999999999999", tmp_path / ".b.tmp-\u00b2",
                       tmp_path / f".c.tmp-{os.getpid()}")
    for path in (huge, odd, live):
        path.write_text("x")
    remove_stale(tmp_path, ".*.tmp-*")
    assert not huge.exists() and odd.exists() and live.exists()


def test_an_atomic_write_where_the_filesystem_cannot_sync_still_writes(tmp_path, monkeypatch):
    """Some FUSE and network filesystems answer fsync with EINVAL: the write goes on as before the sync was added;
    a real I/O error is still one line naming the file."""
    import errno

    from judgeagent.files import write_json_atomic

    def refuse(number):
        def fsync(fd):
            raise OSError(number, os.strerror(number))
        return fsync

    monkeypatch.setattr(os, "fsync", refuse(errno.EINVAL))
    write_json_atomic(tmp_path / "manifest.json", {"status": "running"})
    assert json.loads((tmp_path / "manifest.json").read_text()) == {"status": "running"}
    monkeypatch.setattr(os, "fsync", refuse(errno.EIO))
    with pytest.raises(JudgeAgentError, match="cannot write .*summary.json"):
        write_json_atomic(tmp_path / "summary.json", {})
    assert not (tmp_path / "summary.json").exists() and not list(tmp_path.glob(".*.tmp-*"))


def test_atomic_writes_sync_the_file_before_renaming_it(tmp_path, monkeypatch):
    """A run's manifest and summary reach the disk before their names do: after a power cut the file is the old or
    the new one, never an empty file under the new name (ext4 and XFS journal the rename before delayed data)."""
    from judgeagent.files import write_json_atomic

    events = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))),
                                                 fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", str(a))), replace(a, b)))
    write_json_atomic(tmp_path / "manifest.json", {"status": "running"})
    tmp = str(tmp_path / f".manifest.json.tmp-{os.getpid()}@{socket.gethostname()}")
    assert events == [("fsync", tmp), ("replace", tmp)]
    assert json.loads((tmp_path / "manifest.json").read_text()) == {"status": "running"}


def test_a_run_dir_that_is_a_file_is_refused(roles, tmp_path, capsys):
    config, file = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "notes.txt"
    file.write_text("mine\n")
    code, _, err = cli(evaluate_args(config, file), capsys)
    assert_one_line_error(code, err, f"run folder {file} is a file")
    code, _, err = cli(evaluate_args(config, file / "run"), capsys)
    assert_one_line_error(code, err, f"cannot create run folder {file / 'run'}")
    assert file.read_text() == "mine\n"


def test_a_folder_of_other_files_is_not_taken_for_a_run(roles, tmp_path, capsys):
    config, folder = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "papers"
    folder.mkdir()
    (folder / "draft.md").write_text("mine\n")
    code, _, err = cli(evaluate_args(config, folder), capsys)
    assert_one_line_error(code, err, "not a judgeagent run")
    assert [p.name for p in folder.iterdir()] == ["draft.md"]


def test_a_missing_key_fails_before_the_run_folder_exists(roles, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("JUDGEAGENT_TEST_JUDGE_KEY", raising=False)
    config = roles.write_config(tmp_path / "judgeagent.toml", keys={"int": "JUDGEAGENT_TEST_JUDGE_KEY"})
    run = tmp_path / "run"
    code, _, err = cli(evaluate_args(config, run), capsys)
    assert_one_line_error(code, err, "JUDGEAGENT_TEST_JUDGE_KEY, which is not set")
    assert not run.exists() and roles.calls() == 0


def test_a_run_written_twice_before_locks_existed_reports_each_question_once(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    assert cli(evaluate_args(config, run, limit=10), capsys)[0] == 0
    assert cli(["report", run], capsys)[0] == 0
    once = (run / "weaknesses.jsonl").read_text()
    path = run / "records.jsonl"
    path.write_text(path.read_text() * 2)  # what two unlocked writers left behind
    code, out, _ = cli(["report", run], capsys)
    assert code == 0 and (run / "weaknesses.jsonl").read_text() == once
    assert f"({len(once.splitlines())} failed questions)" in out


def test_feedback_appended_out_of_order_is_read_in_batch_order(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "j.toml"), tmp_path / "run"
    assert cli(evaluate_args(config, run, limit=15), capsys)[0] == 0
    lines = (run / "feedback.jsonl").read_text().splitlines()
    assert len(lines) == 3
    (run / "feedback.jsonl").write_text("\n".join(reversed(lines)) + "\n")  # as batches may finish
    assert [f.batch for f in read_feedback(load_run(run))] == [0, 1, 2]


def as_format_1(run):
    """The run as judgeagent wrote it before format 2: format_version 1, no `protocol`, no episodes.jsonl."""
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["format_version"] = 1
    del manifest["protocol"]
    del manifest["logs"]  # counted only by later versions of format 2
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / "episodes.jsonl").unlink(missing_ok=True)


def test_a_format_1_run_is_validated_reported_compared_and_resumed(roles, tmp_path, capsys):
    config, fresh, old, stopped = (roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "fresh",
                                   tmp_path / "old", tmp_path / "stopped")
    assert cli(evaluate_args(config, fresh), capsys)[0] == 0
    assert json.loads((fresh / "manifest.json").read_text())["format_version"] == 2
    assert cli(evaluate_args(config, old), capsys)[0] == 0
    as_format_1(old)
    for run in (fresh, old):
        assert cli(["validate", run, "--config", config, "--no-cache", "-q"], capsys)[0] == 0
        assert cli(["report", run], capsys)[0] == 0 and (run / "report.html").exists()
    assert (json.loads((old / "validation.json").read_text())["overall"]
            == json.loads((fresh / "validation.json").read_text())["overall"])
    code, out, _ = cli(["compare", fresh, old], capsys)
    assert code == 0 and "| fresh |" in out and "| old |" in out
    # Stopped half way under format 1 (a copy of the finished run cut back: batches 0-1 done, 2 of batch 2's
    # questions asked; no journal), resumed by format 2.
    shutil.copytree(fresh, stopped)
    as_format_1(stopped)
    manifest = json.loads((stopped / "manifest.json").read_text())
    manifest.update(status="running")
    (stopped / "manifest.json").write_text(json.dumps(manifest))
    for name in ("summary.json", "validation.json", "validation.jsonl", "responses.sqlite", "report.md", "report.html"):
        (stopped / name).unlink(missing_ok=True)
    lines = lambda name: (stopped / name).read_text().splitlines()
    kept = ([x for x in lines("records.jsonl") if json.loads(x)["batch"] < 2]
            + [x for x in lines("records.jsonl") if json.loads(x)["batch"] == 2][:2])
    (stopped / "records.jsonl").write_text("\n".join(kept) + "\n")
    (stopped / "feedback.jsonl").write_text("\n".join(x for x in lines("feedback.jsonl") if json.loads(x)["batch"] < 2) + "\n")
    calls = roles.target.counts["requests"]
    assert cli(["evaluate", "--resume", stopped, "--config", config, "-q"], capsys)[0] == 0
    ids = record_ids(stopped)
    assert len(ids) == len(set(ids)) == 25 and roles.target.counts["requests"] - calls == 25 - len(kept)
    manifest = json.loads((stopped / "manifest.json").read_text())
    assert manifest["format_version"] == 1 and manifest["status"] == "finished"
    assert len(kept) == 12 and len(lines("episodes.jsonl")) == 5 and len(lines("feedback.jsonl")) == 5
    summary = lambda run: {k: v for k, v in json.loads((run / "summary.json").read_text()).items()
                           if k != "usage"}
    assert summary(stopped) == summary(fresh)


def test_a_run_of_a_newer_format_is_refused_in_one_line(roles, tmp_path, capsys):
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    assert cli(evaluate_args(config, run), capsys)[0] == 0
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["format_version"] = 99
    (run / "manifest.json").write_text(json.dumps(manifest))
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    version = manifest["versions"]["judgeagent"]
    for command in (["validate", run, "--config", config], ["report", run], ["compare", run, run],
                    ["evaluate", "--resume", run, "--config", config, "-q"], evaluate_args(config, run)):
        code, _, err = cli(command, capsys)
        assert_one_line_error(code, err, f"format version 99, written by judgeagent {version}")
        assert "upgrade judgeagent" in err, command
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_a_run_folder_of_another_configuration_names_what_differs(tmp_path):
    """The error says which options changed, with both values: an option the run has no value for came with a
    later version (resuming a run begun before it means giving it the value that run had)."""
    from judgeagent.errors import JudgeAgentError
    from judgeagent.runs import open_run

    folder = tmp_path / "run"
    open_run(folder, {"config_id": "a", "config": {"turns": 2}}).close()
    with pytest.raises(JudgeAgentError, match="options reflection: not set, an option added since there, true now"):
        open_run(folder, {"config_id": "b", "config": {"turns": 2, "reflection": True}})
    with pytest.raises(JudgeAgentError, match=r"\(its models differ\)"):
        open_run(folder, {"config_id": "c", "config": {"turns": 2}, "models": {"target": "other"}})


def test_a_row_whose_key_is_not_text_or_a_number_is_one_line(tmp_path):
    # Found by the fuzzer (tests/test_fuzz_runs.py): a list as record_id was an unhashable TypeError mid-report.
    from judgeagent.errors import JudgeAgentError
    from judgeagent.runs import read_rows

    path = tmp_path / "records.jsonl"
    path.write_text('{"record_id": "a"}\n{"record_id": ["b"]}\n', encoding="utf-8")
    with pytest.raises(JudgeAgentError, match=r"records.jsonl:2: field 'record_id' should be text or a number, "
                                              r"got an array"):
        read_rows(path, "record_id")


def test_resume_refuses_a_run_flag_given_with_another_value(roles, tmp_path, capsys):
    """`--resume` continues the run as started: a flag given again with another value was silently dropped."""
    config, run = roles.write_config(tmp_path / "judgeagent.toml"), tmp_path / "run"
    assert cli(evaluate_args(config, run, limit=2), capsys)[0] == 0
    records = (run / "records.jsonl").read_bytes()
    resume = ["evaluate", "--resume", run, "--config", config, "-q"]
    for flags, needle in ((["--limit", "3"], "started with --limit 2 and this command gives 3"),
                          (["--target", "int"], "started with --target tgt and this command gives int"),
                          (["--seed", "4"], "started with --seed 0 and this command gives 4"),
                          (["--judge", "int"], "started with --judge unset and this command gives int"),
                          # another protocol's name: its options were read as that protocol's ("has no option")
                          (["--protocol", "kieval"], "is a judgeagent run and this command gives --protocol kieval")):
        code, _, err = cli(resume + flags, capsys)
        assert_one_line_error(code, err, needle)
        assert (run / "records.jsonl").read_bytes() == records
    # the same values again, or a default given explicitly, continue the run
    assert cli(resume + ["--limit", "2", "--target", "tgt", "--seed", "0", "--no-extension", "--protocol",
                         "judgeagent"], capsys)[0] == 0
    assert (run / "records.jsonl").read_bytes() == records
