"""`-M ROLE.KEY=VALUE`: one role's model setting reaches that role's requests only, even where another role
names the same model (the judge defaults to the interviewer's), and the manifest records it per role."""
from __future__ import annotations

import json

from judgeagent.benchmark import load_benchmark
from judgeagent.cli.main import main
from judgeagent.models.testserver import FakeServer

from .test_dry_run import HOTPOT, differing


def test_a_role_setting_reaches_only_that_roles_requests(tmp_path, capsys):
    with FakeServer(reply=differing(load_benchmark(HOTPOT).items)) as server:
        config = tmp_path / "j.toml"
        config.write_text("".join(f'[models.{n}]\nbase_url = "{server.base_url}"\nmodel = "{n}"\nmax_retries = 0\n'
                                  for n in ("t", "i")))
        code = main(["evaluate", "--protocol", "interviewer", "--target", "t", "--interviewer", "i", "--benchmark",
                     HOTPOT, "--limit", "2", "-o", "followups=1", "-o", "judge_policy=trust", "--temperature", "0.5",
                     "-M", "judge.temperature=0.1", "-M", "judge.seed=3", "--config", str(config), "--run-dir",
                     str(tmp_path / "run"), "--no-cache", "-q"])
        assert code == 0, capsys.readouterr().err
        made = server.counts["requests"]
        # --resume takes the role's settings back: the same run, finished, and no call made again
        assert main(["evaluate", "--resume", str(tmp_path / "run"), "--config", str(config), "-q"]) == 0
        assert "nothing to do" in capsys.readouterr().out and server.counts["requests"] == made
        bodies = server.bodies
    judged = [b for b in bodies if b["messages"][0]["content"].startswith("You grade")]
    asked = [b for b in bodies if b["model"] == "i" and b not in judged]
    assert judged and asked and {b["model"] for b in judged} == {"i"}  # one model, two roles
    assert {(b["temperature"], b.get("seed")) for b in judged} == {(0.1, 3)}
    assert {(b["temperature"], b.get("seed")) for b in asked + [b for b in bodies if b["model"] == "t"]} == {(0.5, 0)}
    models = json.loads((tmp_path / "run" / "manifest.json").read_text())["models"]
    assert models["judge"]["name"] == models["interviewer"]["name"] == "i"
    assert models["judge"]["generation"]["temperature"] == 0.1 and models["interviewer"]["generation"]["temperature"] == 0.5


def test_a_setting_for_a_role_the_protocol_lacks_is_one_line(capsys):
    code = main(["evaluate", "--protocol", "kieval", "--target", "local", "--benchmark", HOTPOT, "-M",
                 "judge.temperature=0", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "-M judge.temperature: protocol kieval has no role judge; its roles are candidate, interactor, evaluator" in err


def test_the_dry_run_shows_each_roles_own_settings_a_seat_adding_to_its_group(tmp_path, capsys):
    config = tmp_path / "j.toml"
    config.write_text("".join(f'[models.{n}]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "{n}"\n' for n in "ab"))
    code = main(["evaluate", "--protocol", "teach2eval", "--role", "teacher=local", "--role", "students=a,b",
                 "--benchmark", HOTPOT, "--limit", "2", "-M", "students.temperature=1", "-M", "students.2.seed=4",
                 "--config", str(config), "--dry-run"])
    assert code == 0
    assert ("roles: teacher=local, students.1=a (temperature=1), students.2=b (temperature=1, seed=4)"
            in capsys.readouterr().out)
