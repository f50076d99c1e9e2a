"""`evaluate --dry-run` for the protocols other than JudgeAgent: no request reaches the loopback server, and the
call count it prints holds the calls a scripted run of the same command then makes (every reply differs, so no
call is answered from the journal)."""
from __future__ import annotations

import itertools
import json
import re

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.cli.main import main
from judgeagent.models.testserver import FakeServer

from .conftest import DATA
from .test_recipes import knowing

ARC = f"arc:{DATA / 'papers' / 'arc' / 'ARC-Challenge' / 'ARC-Challenge-Test.jsonl'}"
HOTPOT = str(DATA / "hotpotqa" / "small.questions.jsonl")

# protocol -> (its flags, its data, the end of the estimate the script's path lies near: KIEval's evaluator never
# stops early, repairs nothing and the rules decide every answer (the fewest, but for the early stop); Interviewer's
# target answers right at once and nothing is modified (the fewest); Teach2Eval's students never hear a judgment
# (the most); the public goods game is exact; each translation game has one rating, the fewest). Both judges are
# trusted: their calibration asks every pair.
CASES = {
    "kieval": (["--target", "t", "--interviewer", "i", "--judge", "j", "--benchmark", ARC, "--limit", "3",
                "-o", "rounds=2", "-o", "judge_policy=trust"], ARC, "low"),
    "teach2eval": (["--role", "teacher=t", "--role", "students=s1,s2", "--benchmark", ARC, "--limit", "3"], ARC,
                   "high"),
    "interviewer": (["--target", "t", "--interviewer", "i", "--judge", "j", "--benchmark", HOTPOT, "--limit", "3",
                     "-o", "followups=1", "-o", "judge_policy=trust"], HOTPOT, "low"),
    "dynaeval": (["--role", "players=p1,p2", "--role", "referee=r", "-o", "rounds=2"], None, "high"),
    "dynaeval-translation": (["--role", "players=p1,p2", "--role", "referee=r", "-o", "task=translation",
                              "-o", "sources={tmp}/sources.jsonl"], None, "low"),
}


def differing(items):
    """The gold where the prompt holds an item, the smallest valid object for JSON, and a counter on every text
    reply, so that no two requests are answered alike."""
    know, made = knowing(items), itertools.count(1)

    def reply(request):
        text = know(request)
        return text if text.startswith(("{", "[")) else f"{text} (reply {next(made)})"

    return reply


@pytest.mark.parametrize("case", list(CASES))
def test_dry_run_calls_nothing_and_its_estimate_holds_the_calls_made(case, tmp_path, capsys):
    flags, data, near = CASES[case]
    protocol = case.partition("-")[0]
    (tmp_path / "sources.jsonl").write_text("".join(
        json.dumps({"id": f"d{i}", "text": f"Sentence {i} about a river and a town.", "reference": f"Phrase {i}."})
        + "\n" for i in range(3)))
    flags = [f.replace("{tmp}", str(tmp_path)) for f in flags]
    with FakeServer(reply=differing(load_benchmark(data).items if data else [])) as server:
        config = tmp_path / "j.toml"
        config.write_text("".join(f'[models.{n}]\nbase_url = "{server.base_url}"\nmodel = "{n}"\nmax_retries = 0\n'
                                  for n in ("t", "i", "j", "s1", "s2", "p1", "p2", "r")))
        argv = ["evaluate", "--protocol", protocol, *flags, "--config", str(config), "--run-dir", str(tmp_path / "run"),
                "--no-cache", "-q"]
        assert main([*argv, "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert server.counts["requests"] == 0 and not (tmp_path / "run").exists()
        assert f"dry run of protocol {protocol}: no model is called" in out and "  roles: " in out
        low, high = (int(x) for x in re.search(r"calls: (\d+)-(\d+)", out).groups())
        assert main(argv) == 0
        made = server.counts["requests"]
    assert low <= made <= high and abs((low if near == "low" else high) - made) <= 0.25 * made, (low, high, made)


@pytest.mark.parametrize("argv, message", [
    (["--protocol", "dynaeval", "--role", "players=local,local", "-o", "task=translation", "-o",
      "sources=nowhere.jsonl"], "sources file not found: nowhere.jsonl"),
    (["--protocol", "kieval", "--target", "local", "--benchmark", HOTPOT, "-o", "rounds=0"], "option rounds"),
    (["--protocol", "teach2eval", "--role", "teacher=local", "--benchmark", HOTPOT, "-o", "turn=2"],
     "protocol teach2eval has no option 'turn'"),
    # What the run refuses before its first call, its dry run refused too (it printed an estimate, exit 0).
    (["--protocol", "kieval", "--target", "local", "--benchmark", HOTPOT, "--run-dir", HOTPOT],
     f"run folder {HOTPOT} is a file; choose another --run-dir"),
    (["--protocol", "kieval", "--target", "local", "--benchmark", HOTPOT, "--equivalence-weights", "nowhere.json"],
     "equivalence weights nowhere.json not found"),
])
def test_a_dry_run_with_a_bad_option_fails_in_one_line(argv, message, capsys):
    assert main(["evaluate", *argv, "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_dry_run_checks_the_weights_only_where_the_run_reads_them(capsys):
    """Teach2Eval grades no free text: its run turns the learned step off whatever --equivalence-weights names, so
    its dry run does not refuse a missing file (KIEval's does, above)."""
    argv = ["evaluate", "--protocol", "teach2eval", "--role", "teacher=local", "--role", "students=local",
            "--benchmark", ARC, "--limit", "2", "--equivalence-weights", "nowhere.json", "--dry-run"]
    assert main(argv) == 0 and "dry run of protocol teach2eval" in capsys.readouterr().out


def test_kieval_dry_run_prices_the_papers_average_call_and_the_others_say_they_do_not(tmp_path, capsys):
    config = tmp_path / "j.toml"
    config.write_text('[models.a]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "a"\nprices = {input = 2.5, output = 10}\n')
    base = ["evaluate", "--benchmark", HOTPOT, "--limit", "2", "--config", str(config), "--dry-run"]
    assert main([*base, "--protocol", "kieval", "--target", "a", "-o", "judge_policy=off", "-o", "early_stop=false"]) == 0
    out = capsys.readouterr().out
    # 2 items x (3 answers + 5 rounds x 3) = 36 calls at the fewest; the recipe's 1,050 + 115 tokens a call
    assert "calls: 36-" in out and "tokens: 37,800-" in out and "completion (the paper's average call)" in out
    low = 36 * (1050 * 2.5 + 115 * 10) / 1e6
    assert f"cost: ${low:.2f}-" in out
    assert main([*base, "--protocol", "interviewer", "--target", "a"]) == 0
    assert "tokens and cost: not estimated for this protocol" in capsys.readouterr().out
