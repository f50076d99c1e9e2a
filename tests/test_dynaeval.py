"""DynaEval: the referee and message pool against scripted players (FunctionModel), the public goods
payoffs by hand, the code task's sandbox, convergence, resume, and one run with the embedded model."""
import asyncio
import json
import math
import random
import re
import statistics
from pathlib import Path

import pytest

from judgeagent.benchmark import Benchmark
from judgeagent.cli import main
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from judgeagent.protocols.dynaeval import stability
from judgeagent.protocols.dynaeval.tasks.public_goods import payoffs, read_coins
from tests.scripted import kill_after, kill_then_resume

NONE = Benchmark(Path("none"), [])
SECRET = ("model-alpha-secret", "model-beta-secret", "model-gamma-secret")


def run(models, tmp_path, name="run", **options):
    """`models` as players.1, players.2, ... (and referee): given to the run as the players list."""
    players = [models[f"players.{i}"] for i in range(1, len(models) + 1) if f"players.{i}" in models]
    given = {"players": players, **{k: v for k, v in models.items() if not k.startswith("players.")}}
    return run_protocol("dynaeval", NONE, models=given, config=options, run_dir=tmp_path / name, cache=False)


def rows(folder):
    return [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]


def records(folder):
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def prompts_of(models):
    """What the referee told every model (their own earlier replies left out)."""
    return [m["content"] for model in models.values() for call in model.calls for m in call if m["role"] != "assistant"]


def round_of(messages):
    found = re.findall(r"Round (\d+) starts", messages[-1]["content"])
    return int(found[-1])


def investor(amounts, name):
    """A player investing amounts[round - 1], saying so in JSON with a reason unique to it and the round."""
    def reply(messages):
        r = round_of(messages)
        return json.dumps({"reason": f"{name}-move-{r}", "coins": amounts[r - 1]})
    return FunctionModel(reply, name=name)


# --- public goods: arithmetic, rounds, invalid moves -------------------------------------------------------

def test_public_goods_payoffs_by_hand():
    # Round 1: pool 10 -> 15, share 7.5: A kept 0, B kept 10. Round 2: A invests 5, B's move is invalid:
    # pool 5 -> 7.5, share 3.75; A kept 5, B keeps nothing (the forfeit rule).
    assert payoffs([{"A": 10, "B": 0}, {"A": 5, "B": None}], 10, 1.5) == {"A": 16.25, "B": 21.25}
    assert read_coins('I think so. {"reason": "safe", "coins": 4}') == 4
    assert read_coins("I will invest 7 coins") == 7 and read_coins("nothing to say") is None


def test_public_goods_game_scores_every_round_and_counts_invalid_moves(tmp_path):
    models = {"players.1": investor([10, 10, 4], SECRET[0]), "players.2": investor([0, 0, 0], SECRET[1]),
              "players.3": FunctionModel(lambda m: "I would rather not say." if round_of(m) == 1 else
                                         '{"reason": "greedy", "coins": 11}' if round_of(m) == 2 else
                                         '{"reason": "fine", "coins": 2}', name=SECRET[2])}
    result = run(models, tmp_path, rounds=3, multiplier=1.5, endowment=10, max_runs=2, min_runs=2)
    # shares: round 1 1.5*10/3 = 5, round 2 1.5*10/3 = 5 (player 3 invalid), round 3 1.5*6/3 = 3
    expected = {"players.1": 0 + 5 + 0 + 5 + 6 + 3, "players.2": 15 + 15 + 13, "players.3": 5 + 5 + 8 + 3}
    for row in rows(result.folder):
        assert row["rounds"] == 3 and row["end"] == "rounds played"
        by_player = {player: row["scores"][seat] for seat, player in row["cast"].items()}
        assert by_player == pytest.approx(expected)
        invalid = {player: row["metrics"][seat]["invalid"] for seat, player in row["cast"].items()}
        assert invalid == {"players.1": 0, "players.2": 0, "players.3": 2}
    assert all(len(m.calls) == 3 * 2 for m in models.values())  # 3 rounds, 2 repetitions: the end is kept
    moves = [r for r in records(result.folder) if r["role"] == "players.3"]
    assert sorted(r["scores"]["valid"]["reason"] for r in moves if not r["scores"]["valid"]["value"]) == \
        ["11 is outside 0..10"] * 2 + ["no number"] * 2
    assert result.summary["players"]["players.2"]["mean"] == pytest.approx(43)


def test_rounds_are_synchronous_and_players_anonymous(tmp_path):
    """Both players are asked before either answers; no one sees a same-round move; mode 2 reveals the
    sorted investments of the last round only; no prompt names a model."""
    started = {name: asyncio.Event() for name in SECRET[:2]}

    def waiting(name, other, amounts):
        async def reply(messages):
            started[name].set()
            await asyncio.wait_for(started[other].wait(), 5)  # a sequential referee would time out here
            r = round_of(messages)
            return json.dumps({"reason": f"{name}-move-{r}", "coins": amounts[r - 1]})
        return reply

    models = {"players.1": FunctionModel(waiting(SECRET[0], SECRET[1], [3, 8]), name=SECRET[0]),
              "players.2": FunctionModel(waiting(SECRET[1], SECRET[0], [6, 1]), name=SECRET[1])}
    run(models, tmp_path, rounds=2, mode=2, max_runs=2, min_runs=2)
    for name, model in zip(SECRET[:2], models.values()):
        other = SECRET[1] if name == SECRET[0] else SECRET[0]
        for call in model.calls:
            text = "\n".join(m["content"] for m in call)
            assert f"{other}-move" not in text  # moves reach the referee only
            r = round_of(call)
            if r == 1:
                assert "amounts of invested coins" not in text
            else:
                assert "[6.0, 3.0]" in call[-1]["content"]
    texts = prompts_of(models)
    assert not any(s in t for t in texts for s in SECRET) and not any("players." in t for t in texts)
    assert any("Player A" in t for t in texts)


SAYS = {"players.1": "I think I'll put in seven coins this round", "players.2": '{"reason": "fair", "coins": 4}',
        "players.3": "I invest 12 coins, all of it"}


def word_referee(messages):
    """A referee that reads amounts written in words or digits; null for none in 0..10."""
    reply = re.search(r"<reply>\n(.*)\n</reply>", messages[-1]["content"], re.DOTALL).group(1)
    words = {"seven": 7}
    found = [words[w] for w in re.findall(r"[a-z]+", reply.lower()) if w in words] + \
        [float(x) for x in re.findall(r"\d+", reply)]
    return json.dumps({"coins": found[0] if found and 0 <= found[0] <= 10 else None})


@pytest.mark.parametrize("referee, expected, parsed_by, notes", [
    # pool 7 + 4 = 11 -> 16.5, share 5.5 each; players.3's 12 is read as no legal amount
    ("words", {"players.1": 3 + 5.5, "players.2": 6 + 5.5, "players.3": 0 + 5.5}, "referee",
     {"players.1": "", "players.2": "", "players.3": "no amount in 0..10 (referee)"}),
    # the rule: no digit in players.1's reply; pool 4 -> 6, share 2
    (None, {"players.1": 0 + 2, "players.2": 6 + 2, "players.3": 0 + 2}, "rule",
     {"players.1": "no number", "players.2": "", "players.3": "12 is outside 0..10"}),
    # a referee that answers nonsense: the rule reads each reply instead, the same scores as without one
    ("garbage", {"players.1": 0 + 2, "players.2": 6 + 2, "players.3": 0 + 2}, "rule",
     {"players.1": "no number; referee unreadable", "players.2": "referee unreadable",
      "players.3": "12 is outside 0..10; referee unreadable"}),
    # a referee whose amount is out of range fails the bounded schema: the rule again
    ("out of range", {"players.1": 0 + 2, "players.2": 6 + 2, "players.3": 0 + 2}, "rule",
     {"players.1": "no number; referee unreadable (coins", "players.2": "referee unreadable (coins",
      "players.3": "12 is outside 0..10; referee unreadable (coins"}),
])
def test_public_goods_moves_are_read_by_the_referee_or_the_rule(tmp_path, referee, expected, parsed_by, notes):
    models = {p: FunctionModel(lambda m, p=p: SAYS[p], name=secret) for p, secret in zip(SAYS, SECRET)}
    if referee:
        script = {"words": word_referee, "garbage": lambda m: "Sure! The player seems generous.",
                  "out of range": lambda m: '{"coins": 42}'}[referee]
        models["referee"] = FunctionModel(script, name="referee-secret")
    result = run(models, tmp_path, rounds=1, multiplier=1.5, endowment=10, max_runs=2, min_runs=2)
    for row in rows(result.folder):
        assert {player: row["scores"][seat] for seat, player in row["cast"].items()} == pytest.approx(expected)
        for move in row["moves"]:
            player = row["cast"][move["seat"]]
            assert move["parsed_by"] == parsed_by and move["note"].startswith(notes[player])
            # the referee reads players.1's words; the rule sees no number in them
            assert move["valid"] == (player == "players.2" or (player == "players.1" and parsed_by == "referee"))
            invalid = row["metrics"][move["seat"]]["invalid"]
            assert invalid == (0 if move["valid"] else 1)
    assert {r["meta"]["parsed_by"] for r in records(result.folder)} == {parsed_by}
    assert {r["scores"]["valid"]["method"] for r in records(result.folder)} == {parsed_by}
    assert result.summary["parsed_by"] == {parsed_by: 2 * 3}
    if referee:  # asked to read each reply, shown it and the range, never a model's name or seat
        asked = models["referee"].calls
        assert {re.search(r"<reply>\n(.*)\n</reply>", c[-1]["content"], re.DOTALL).group(1) for c in asked} == \
            set(SAYS.values()) and all("0 to 10" in c[-1]["content"] for c in asked)
        assert not any(s in m["content"] for c in asked for m in c for s in (*SECRET, "players.", "Player "))
    assert f"moves read by {parsed_by} 6" in (result.folder / "report.md").read_text()


def test_seats_are_shuffled_per_repetition_with_the_seed():
    seats, players = ["Player A", "Player B", "Player C"], ["players.1", "players.2", "players.3"]
    casts = [stability.symmetric_cast(seats, players, 7, r) for r in range(12)]
    assert casts == [stability.symmetric_cast(seats, players, 7, r) for r in range(12)]
    assert len({c for c in casts}) > 1 and all(sorted(p for _, p in c) == players for c in casts)
    assert {dict(c)["Player A"] for c in casts} == set(players)


# --- code generation and review: roles, ends, the sandbox ---------------------------------------------------

BEHAVIOURS = {
    "f_ok": "def f_ok(x):\n    return 2 * x\n",
    "f_loop": "def f_loop(x):\n    while True:\n        pass\n",
    "f_memory": "def f_memory(x):\n    blocks = []\n    while True:\n        blocks.append(bytearray(10 ** 7))\n",
    "f_network": "def f_network(x):\n    import socket\n    socket.create_connection(('example.com', 80))\n"
                 "    return 2 * x\n",
    "f_write": "def f_write(x):\n    open('/tmp/judgeagent-escaped.txt', 'w').write('x')\n    return 2 * x\n",
}


def problems_file(tmp_path, names):
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps({
        "task_id": f"T/{name}", "prompt": f"from typing import List\n\n\ndef {name}(x: int) -> int:\n"
        f"    \"\"\"Return twice x.\"\"\"\n", "entry_point": name,
        "test": "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(0) == 0\n"}) + "\n"
        for name in names))
    return path


def programmer_code(messages):
    name = re.search(r"def (f_\w+)\(", "\n".join(m["content"] for m in messages)).group(1)
    return f"```python\n{BEHAVIOURS[name]}```"


def coder(name, review="over"):
    """As programmer: the code for the problem; as reviewer: `review` (a reply, or a function of the messages)."""
    def reply(messages):
        if "code reviewer" in messages[0]["content"]:
            return review(messages) if callable(review) else review
        if "Question:" in messages[-1]["content"] or "def " not in messages[-1]["content"]:
            return programmer_code(messages)  # the first draft, or kept against comments without code
        return "over"  # the reviewer's code is accepted
    return FunctionModel(reply, name=name)


def test_code_task_stops_bad_code_scores_it_zero_and_goes_on(tmp_path):
    path = problems_file(tmp_path, list(BEHAVIOURS))
    models = {"players.1": coder(SECRET[0]), "players.2": coder(SECRET[1])}
    result = run(models, tmp_path, task="code", scoring="judgeagent", problems=str(path), items=5, max_runs=5, min_runs=5,
                 timeout_s=6, memory_mb=256)
    games = rows(result.folder)
    assert len(games) == 10  # 5 problems x 2 role assignments
    status = {}
    for g in games:
        final = g["metrics"]["programmer"]["final"]
        status[g["item"]] = final["status"]
        assert g["scores"] == {"programmer": float(g["item"] == "T/f_ok"), "reviewer": float(g["item"] == "T/f_ok")}
        assert g["end"] == "consensus" and g["rounds"] == 2
    assert status == {"T/f_ok": "passed", "T/f_loop": "timeout", "T/f_memory": "memory",
                      "T/f_network": "error", "T/f_write": "error"}
    assert not Path("/tmp/judgeagent-escaped.txt").exists()
    matrix = result.summary["matrix"]
    assert {p: set(cells) for p, cells in matrix.items()} == {"players.1": {"programmer", "reviewer"},
                                                              "players.2": {"programmer", "reviewer"}}
    assert all(c["n"] == 5 and c["mean"] == pytest.approx(0.2) for cells in matrix.values() for c in cells.values())


def test_a_resumed_run_refuses_an_edited_problems_file(tmp_path):
    """The run's identity names the file; the manifest keeps the hash of its bytes: an edit between a
    killed run and its resumption stops the run before any call, and leaves the folder as it was."""
    import hashlib

    from judgeagent.errors import JudgeAgentError

    path = problems_file(tmp_path, ["f_ok"])
    original = path.read_bytes()

    def players():
        def reply(messages):
            return programmer_code(messages) if "Question:" in messages[-1]["content"] else "over"
        return {"players.1": FunctionModel(reply, name="a"), "players.2": FunctionModel(reply, name="b")}

    opts = {"task": "code", "scoring": "judgeagent", "problems": str(path), "items": 1, "max_runs": 2, "min_runs": 2}
    with pytest.raises(RuntimeError, match="killed"):
        run(kill_after(players(), ("players.1", "players.2"), 3), tmp_path, **opts)
    folder = tmp_path / "run"
    source = json.loads((folder / "manifest.json").read_text())["dynaeval"]["source"]
    assert source == {"option": "problems", "path": str(path), "sha256": hashlib.sha256(original).hexdigest()}

    path.write_bytes(original.replace(b"candidate(0) == 0", b"candidate(1) == 2"))  # a test edited
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    again = players()
    with pytest.raises(JudgeAgentError) as refused:
        run(again, tmp_path, **opts)
    old, new = source["sha256"], hashlib.sha256(path.read_bytes()).hexdigest()
    assert str(refused.value) == (f"the problems file {path} changed since this run began (sha256 {old[:12]}… → "
                                  f"{new[:12]}…): start a new run (--run-dir elsewhere) or restore the file")
    assert sum(len(m.calls) for m in again.values()) == 0
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before

    path.write_bytes(original)  # restored: the run resumes and finishes
    result = run(players(), tmp_path, **opts)
    assert result.summary["games"] == 4 and all(g["scores"]["programmer"] == 1.0 for g in rows(folder))


def test_real_humaneval_problems_pass_with_their_canonical_solutions(tmp_path):
    """The programmer writes the whole function (signature and body, no imports): the problem's imports
    are put above it, and HumanEval's own check passes."""
    from tests.conftest import DATA

    problems = {json.loads(line)["prompt"]: json.loads(line) for line in
                (DATA / "humaneval" / "problems.jsonl").read_text().splitlines()}

    def canonical(messages):
        if "code reviewer" in messages[0]["content"]:
            return "over"
        prompt = next(p for p in problems if p in messages[-1]["content"])
        body = prompt[prompt.index("def " + problems[prompt]["entry_point"]):] + problems[prompt]["canonical_solution"]
        return f"```python\n{body}```"

    models = {"players.1": FunctionModel(canonical, name="a"), "players.2": FunctionModel(canonical, name="b")}
    result = run(models, tmp_path, task="code", scoring="judgeagent", problems=str(DATA / "humaneval" / "problems.jsonl"), items=3,
                 max_runs=3, min_runs=3, seed=2)
    games = rows(result.folder)
    assert {g["item"] for g in games} == {"HumanEval/69", "HumanEval/147", "HumanEval/25"}  # 25 imports List
    assert len(games) == 6
    assert all(g["scores"]["programmer"] == 1.0 for g in games), [g["metrics"]["programmer"]["final"] for g in games]


def test_roles_swap_and_the_reviewer_fixes_the_code(tmp_path):
    """players.2 reviews with a fix; players.1 never does: the matrix separates them by role."""
    path = problems_file(tmp_path, ["f_loop"])
    fix = f"```python\n{BEHAVIOURS['f_ok'].replace('f_ok', 'f_loop')}```"
    reviews = iter(range(100))

    def stubborn(messages):  # never agrees: the game runs to the round limit
        return f"Consider a cleaner loop. (review {next(reviews)})"

    models = {"players.1": coder(SECRET[0], review=stubborn), "players.2": coder(SECRET[1], review=fix)}
    result = run(models, tmp_path, task="code", scoring="judgeagent", problems=str(path), items=1, max_runs=2, min_runs=2,
                 review_rounds=2, timeout_s=1)
    games = rows(result.folder)
    by_writer = {g["cast"]["programmer"]: g for g in games}
    assert by_writer["players.1"]["scores"]["programmer"] == 1.0  # reviewed by players.2: fixed
    assert by_writer["players.1"]["metrics"]["programmer"]["draft"]["status"] == "timeout"
    assert by_writer["players.1"]["end"] == "consensus"  # players.1 accepts the fix with "over"
    assert by_writer["players.2"]["scores"]["programmer"] == 0.0 and by_writer["players.2"]["end"] == "round limit"
    assert by_writer["players.2"]["rounds"] == 4
    m = result.summary["matrix"]
    assert m["players.1"]["programmer"]["mean"] == 1.0 and m["players.2"]["reviewer"]["mean"] == 1.0
    assert m["players.2"]["programmer"]["mean"] == 0.0 and m["players.1"]["reviewer"]["mean"] == 0.0
    report = (result.folder / "report.md").read_text()
    assert "## Model x role" in report and "| players.1 | model-alpha-secret | 1.000" in report


def test_code_referee_rates_style_without_seeing_names(tmp_path):
    path = problems_file(tmp_path, ["f_ok"])
    referee = FunctionModel(lambda m: '{"reasoning": "tidy", "score": 8}', name="referee-secret")
    models = {"players.1": coder(SECRET[0]), "players.2": coder(SECRET[1]), "referee": referee}
    result = run(models, tmp_path, task="code", scoring="judgeagent", problems=str(path), items=1, max_runs=2, min_runs=2)
    assert all(g["metrics"]["programmer"]["style"] == 8 for g in rows(result.folder))
    assert result.summary["measures"]["players.1"]["style"] == 8
    assert not any(s in t for t in prompts_of(models) for s in (*SECRET, "referee-secret", "players."))


# --- idiom solitaire ------------------------------------------------------------------------------------------

def test_idiom_moves_are_checked_against_the_list_the_chain_and_repeats():
    from judgeagent.protocols.dynaeval.config import DynaEvalConfig
    from judgeagent.protocols.dynaeval.tasks.idiom import IdiomGame, idioms

    words = idioms()
    assert len(words) > 20000 and {"人山人海", "海阔天空", "空前绝后", "后发制人", "人定胜天"} <= words
    assert not {"人山人哈", "你好世界"} & words
    game = IdiomGame(DynaEvalConfig(task="idiom"), ("Player A", "Player B"), "人山人海", random.Random(0))
    assert game.read("Player A", "海阔天空").valid and game.read("Player A", "好的：海阔天空。").value == "海阔天空"
    game.apply(1, {"Player A": game.read("Player A", "海阔天空")})
    assert game.ended(1) is None and game.prompt("Player B", 2) == "人山人海 → 海阔天空"
    assert game.read("Player B", "人山人海").note == "does not start with 空"
    assert game.read("Player B", "空空空空").note == "not in the idiom list"
    assert game.read("Player B", "I give up").note == "no four-character idiom"
    game.chain += ["空前绝后", "后发制人"]  # the paper's chain: back to 人, where it started
    assert game.read("Player B", "人山人海").note == "already used" and game.read("Player B", "人定胜天").valid


def test_idiom_solitaire_ends_on_an_invalid_move_and_scores_wins(tmp_path):
    from judgeagent.protocols.dynaeval.tasks.idiom import idioms

    words = sorted(idioms())

    def good(messages):  # a real idiom that continues the chain, never used before
        chain = messages[-1]["content"].split(" → ")
        return next(w for w in words if w[0] == chain[-1][-1] and w not in chain)

    def invents(messages):  # right first character, then an invented word
        return messages[-1]["content"].split(" → ")[-1][-1] + "哈哈哈"

    models = {"players.1": FunctionModel(good, name=SECRET[0]), "players.2": FunctionModel(invents, name=SECRET[1])}
    result = run(models, tmp_path, task="idiom", idiom_play="all", max_runs=4, min_runs=4)
    games = rows(result.folder)
    for g in games:
        assert g["end"].startswith("invalid move by")
        assert {g["cast"][s]: v for s, v in g["scores"].items()} == {"players.1": 1.0, "players.2": 0.0}
        assert [m["note"] for m in g["moves"] if not m["valid"]] == ["not in the idiom list"]
        assert all(m["valid"] for m in g["moves"][:-1])
    assert {g["cast"]["Player A"] for g in games} == {"players.1", "players.2"}  # each model opens some games
    assert len({g["item"] for g in games}) == 4  # a start idiom per repetition
    assert result.summary["players"]["players.1"]["mean"] == 1.0
    draw = {"players.1": FunctionModel(good, name=SECRET[0]), "players.2": FunctionModel(good, name=SECRET[1])}
    result = run(draw, tmp_path, "draw", task="idiom", idiom_play="all", max_runs=2, min_runs=2, idiom_moves=6)
    assert all(g["end"] == "move limit (draw)" and set(g["scores"].values()) == {0.5} and g["rounds"] == 6
               for g in rows(result.folder))


# --- convergence ----------------------------------------------------------------------------------------------

def expected_stop(scores_by_player, epsilon, min_runs, max_runs):
    """By hand: the first n >= min_runs at which every player's 1.96 * s / sqrt(n) is below epsilon."""
    for n in range(min_runs, max_runs + 1):
        if all(1.96 * statistics.stdev(v[:n]) / math.sqrt(n) < epsilon for v in scores_by_player.values()):
            return n
    return max_runs


def test_the_stopping_rule_on_known_noise():
    rng = random.Random(3)
    true = {"p.1": 5.0, "p.2": 8.0}
    draws = {p: [mu + rng.gauss(0, 1.0) for _ in range(200)] for p, mu in true.items()}
    done: list[dict] = []
    while True:
        wave = stability.next_wave(done, True, epsilon=0.4, min_runs=3, max_runs=200, wave=1)
        if not wave:
            break
        done += [{"repetition": r, "cast": {"A": "p.1", "B": "p.2"},
                  "scores": {"A": draws["p.1"][r], "B": draws["p.2"][r]}} for r in wave]
    n = stability.repetitions_done(done)
    assert n == expected_stop(draws, 0.4, 3, 200) and 20 <= n <= 40  # sigma 1, half-width 0.4: n ~ 24
    for p, stats in stability.estimates(done, True).items():
        assert stats["n"] == n and stats["interval"][0] < true[p] < stats["interval"][1]


def test_a_run_stops_when_the_scores_converge(tmp_path):
    """One-round games, players investing a seeded random amount: payoff 10 - a/2 + b/2, mean 10."""
    def noisy(seed, name):
        rng = random.Random(seed)
        return FunctionModel(lambda messages: json.dumps({"reason": "dice", "coins": rng.randint(0, 10)}), name=name)

    def once(name):
        models = {"players.1": noisy(1, "a"), "players.2": noisy(2, "b")}
        return run(models, tmp_path, name, rounds=1, multiplier=1.0, epsilon=1.2, min_runs=3, max_runs=60,
                   repeat="converge")

    result = once("run")
    games = rows(result.folder)
    by_player = {p: [g["scores"][s] for g in games for s, q in g["cast"].items() if q == p]
                 for p in ("players.1", "players.2")}
    n = result.summary["repetitions"]
    assert n == expected_stop(by_player, 1.2, 3, 60) < 60 and result.summary["converged"]
    for stats in result.summary["players"].values():
        assert stats["n"] == n and stats["interval"][0] < 10 < stats["interval"][1]
    assert once("again").summary["players"] == result.summary["players"]  # seeded: the same run again
    report = (result.folder / "report.md").read_text()
    assert "## Convergence" in report and f"| {n} |" in report


@pytest.mark.parametrize("repeat, max_runs, played", [("fixed", None, 10), ("fixed", 4, 4), ("converge", None, 3)])
def test_fixed_repetitions_play_the_papers_count_whatever_the_scores(tmp_path, repeat, max_runs, played):
    """Constant players converge at once (half-width 0): the stopping rule ends at min_runs (3), the paper's
    fixed mode plays its 10 public goods games (Section 3.1) or the max_runs given."""
    models = {"players.1": investor([4], "a"), "players.2": investor([6], "b")}
    opts = {"rounds": 1, "repeat": repeat} | ({"max_runs": max_runs} if max_runs else {})
    result = run(models, tmp_path, **opts)
    s = result.summary
    cap = played if repeat == "fixed" else 10  # converge: judgeagent's earlier default cap
    assert (s["repetitions"], s["games"], s["max_runs"], s["converged"]) == (played, played, cap, True)
    assert s["scoring"] == {"repeat": repeat}
    assert all(len(m.calls) == played for m in models.values())
    report = (result.folder / "report.md").read_text()
    assert (f"a fixed {played} repetitions (`repeat=fixed`" in report) == (repeat == "fixed")


def test_a_killed_run_resumes_without_repeating_a_call(tmp_path):
    def models():
        def reply(messages):
            seat_a = "You are Player A" in messages[0]["content"]
            return json.dumps({"reason": "steady", "coins": (2 if seat_a else 7) + round_of(messages) % 2})
        return {"players.1": FunctionModel(reply, name="a"), "players.2": FunctionModel(reply, name="b")}

    # Scores depend on the seat, which changes between repetitions: no convergence before max_runs, so
    # the run has two waves (3 repetitions, then 1); it is killed during the second.
    opts = {"rounds": 3, "max_runs": 4, "min_runs": 3, "epsilon": 0.001, "repeat": "converge"}
    k = kill_then_resume(tmp_path, lambda m, folder: run(m, tmp_path, folder.name, **opts), models,
                         ("players.1", "players.2"), 20)
    assert k.total == 4 * 3 * 2 and k.clean.summary["repetitions"] == 4
    assert k.repeated == 0 and k.resumed.summary["players"] == k.clean.summary["players"]


# --- bad input, and the embedded model ------------------------------------------------------------------------

@pytest.mark.parametrize("extra, message", [
    (["-o", "task=chess"], "option task of protocol dynaeval"),
    (["-o", "task=code"], "task code needs its problems: give -o problems=FILE"),
    (["-o", "task=code", "-o", "scoring=judgeagent", "-o", "problems=/nonexistent.jsonl"], "problems file not found"),
    (["-o", "task=code", "-o", "problems=/nonexistent.jsonl"], "scoring=paper is scored by a referee model"),
    (["-o", "repeat=sometimes"], "option repeat of protocol dynaeval"),
    (["-o", "max_runs=0"], "option max_runs of protocol dynaeval"),
    (["-o", "min_runs=5", "-o", "max_runs=2"],
     "options of protocol dynaeval contradict: min_runs (5) is more than max_runs (2): raise max_runs or lower min_runs"),
    (["--role", "judge=local"], "protocol dynaeval has no role judge"),
])
def test_bad_dynaeval_input_is_one_line(tmp_path, capsys, extra, message):
    code = main(["evaluate", "--protocol", "dynaeval", "--role", "players=nobody:a,nobody:b",
                 "--run-dir", str(tmp_path / "run"), "-q", *extra])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_max_runs_alone_below_the_default_min_runs_is_a_short_run():
    from judgeagent.protocols import get_protocol
    from judgeagent.protocols.options import parse_options

    config = parse_options(get_protocol("dynaeval"), ["max_runs=2"])
    assert (config.min_runs, config.max_runs) == (3, 2)  # only both given, and crossed, contradict


@pytest.mark.model  # "players=local,local" starts the embedded server, which the name heuristic (conftest) misses
def test_public_goods_with_the_embedded_model(tmp_path, capsys):
    args = ["evaluate", "--protocol", "dynaeval", "--role", "players=local,local", "-o", "rounds=1",
            "-o", "max_runs=2", "-o", "min_runs=2", "-o", "max_tokens=32", "--run-dir", str(tmp_path / "run"),
            "--no-cache", "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "task public_goods: 2 repetitions, 2 games" in out
    games = rows(tmp_path / "run")
    assert len(games) == 2 and all(g["rounds"] == 1 and len(g["scores"]) == 2 for g in games)
    for g in games:  # whatever the model said, the referee's arithmetic holds
        invested = [{m["seat"]: m["value"] for m in g["moves"]}]
        assert g["scores"] == pytest.approx(payoffs(invested, 10, 1.5))
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Scores" in report and "## Convergence" in report and "## A game (repetition 1)" in report


# --- machine translation ------------------------------------------------------------------------------------

def test_translation_is_rated_blind_in_random_order_and_scored_by_chrf(tmp_path):
    sources = tmp_path / "sources.jsonl"
    sources.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"id": "cat", "text": "The cat sleeps on the mat.", "reference": "Le chat dort sur le tapis."},
        {"id": "rain", "text": "It rains in Paris today.", "reference": "Il pleut à Paris aujourd'hui."},
        {"doc_id": "news", "text": "Short title\n\n" + "A long paragraph about a storm that hit the coast. " * 20}]))
    polished = {"cat": "Le chat dort sur le tapis.", "rain": "Il pleut à Paris aujourd'hui."}

    def translator_or_proofreader(messages):
        last = messages[-1]["content"]
        key = "cat" if "cat" in last else "rain" if "rains" in last else "news"
        if "Translator:" in last:  # proofreading: the reference itself, or a marked polish
            return polished.get(key, "POLISHED une tempête.")
        return "ROUGH " + key

    orders = []

    def referee(messages):
        text = messages[-1]["content"]
        v1 = re.search(r"Version 1: (.*)", text).group(1)
        orders.append("ROUGH" in v1)
        good = {"adequacy": 9, "fluency": 8}
        bad = {"adequacy": 3, "fluency": 2}
        return json.dumps({"reasoning": "compared", "version_1": bad if "ROUGH" in v1 else good,
                           "version_2": good if "ROUGH" in v1 else bad})

    models = {"players.1": FunctionModel(translator_or_proofreader, name=SECRET[0]),
              "players.2": FunctionModel(translator_or_proofreader, name=SECRET[1]),
              "referee": FunctionModel(referee, name="referee-secret")}
    result = run(models, tmp_path, task="translation", scoring="judgeagent", sources=str(sources), items=3, max_runs=6, min_runs=6,
                 max_words=30)
    games = rows(result.folder)
    assert len(games) == 12 and all(g["scores"] == {"translator": 8.5, "proofreader": 8.5} for g in games)
    for g in games:
        m = g["metrics"]["translator"]
        assert m["draft rating"] == 2.5 and m["final rating"] == 8.5
        if g["item"] in polished:
            assert m["final chrF"] == 100.0 and m["draft chrF"] < 30
        else:
            assert "final chrF" not in m
    assert True in orders and False in orders  # both orders shown
    news = next(c for c in models["players.1"].calls if "storm" in c[-1]["content"])
    source = news[-1]["content"].split("Source language text:")[-1]
    assert len(source.split()) == 30 and source.split()[:2] == ["A", "long"]  # the long paragraph, cut
    assert not any(s in t for t in prompts_of(models) for s in (*SECRET, "referee-secret", "players."))
    assert set(result.summary["matrix"]["players.1"]) == {"translator", "proofreader"}
    stamp = json.loads((result.folder / "manifest.json").read_text())["dynaeval"]["source"]
    assert stamp["option"] == "sources" and stamp["path"] == str(sources) and len(stamp["sha256"]) == 64


def test_translation_without_a_referee_is_refused(tmp_path):
    from judgeagent.errors import JudgeAgentError

    sources = tmp_path / "s.jsonl"
    sources.write_text(json.dumps({"text": "Hello there, friend."}) + "\n")
    models = {"players.1": FunctionModel(lambda m: "x", name="a"), "players.2": FunctionModel(lambda m: "y", name="b")}
    with pytest.raises(JudgeAgentError, match="give --role referee=MODEL"):
        run(models, tmp_path, task="translation", sources=str(sources))
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("polish_rounds, end, rounds", [(3, "consensus", 5), (2, "round limit", 4)])
def test_translation_exchange_runs_until_consensus_or_the_polish_limit(tmp_path, polish_rounds, end, rounds):
    """translator ROUGH -> proofreader BETTER -> translator REVISED -> proofreader BEST -> translator over."""
    sources = tmp_path / "sources.jsonl"
    sources.write_text(json.dumps({"id": "cat", "text": "The cat sleeps on the mat."}) + "\n")
    answers = {"Translator: ROUGH": "BETTER chat", "Translator: REVISED": "BEST chat",
               "Proofreader: BETTER": "REVISED chat", "Proofreader: BEST": "over"}

    def player(messages):
        last = messages[-1]["content"]
        return next((a for key, a in answers.items() if key in last), "ROUGH chat")

    def referee(messages):
        text = messages[-1]["content"]
        rate = {"ROUGH": {"adequacy": 3, "fluency": 2}, "BEST": {"adequacy": 10, "fluency": 9}}
        v1, v2 = (re.search(rf"Version {k}: (\S+)", text).group(1) for k in (1, 2))
        return json.dumps({"reasoning": "compared", "version_1": rate[v1], "version_2": rate[v2]})

    models = {"players.1": FunctionModel(player, name=SECRET[0]), "players.2": FunctionModel(player, name=SECRET[1]),
              "referee": FunctionModel(referee, name="referee-secret")}
    result = run(models, tmp_path, task="translation", scoring="judgeagent", sources=str(sources), items=1, max_runs=2, min_runs=2,
                 polish_rounds=polish_rounds)
    games = rows(result.folder)
    assert len(games) == 4
    for g in games:
        assert g["end"] == end and g["rounds"] == rounds
        assert [m["seat"] for m in g["moves"]] == ["translator", "proofreader"] * 2 + ["translator"] * (rounds == 5)
        m = g["metrics"]["translator"]
        assert (m["draft rating"], m["final rating"], m["versions"]) == (2.5, 9.5, 4)
        assert g["scores"] == {"translator": 9.5, "proofreader": 9.5}
    asked = [c for model in (models["players.1"], models["players.2"]) for c in model.calls]
    assert all("reply only 'over'" in c[0]["content"] for c in asked)  # the rule offers consensus
    revision = [c for c in asked if "Proofreader: BETTER chat" in c[-1]["content"]]
    assert revision and all("role of a professional translator." in c[0]["content"] for c in revision)


def test_translation_paper_scoring_rates_each_role_and_gives_bleu_beside_chrf(tmp_path):
    """scoring=paper (Table 3): the referee rates the translator and the proofreader from their dialogue with
    the paper's judge prompt; each seat scores its own rating; BLEU (0-1, as the paper prints it) and chrF of
    each role's own version, and the headline names BLEU per role."""
    from sacrebleu.metrics import BLEU

    sources = tmp_path / "sources.jsonl"
    reference = "Le chat dort sur le tapis rouge."
    sources.write_text(json.dumps({"id": "cat", "text": "The cat sleeps on the red mat.", "reference": reference}) + "\n")

    def player(messages):
        return "Le chat dort sur le tapis rouge." if "Translator:" in messages[-1]["content"] else "Un chat dort."

    def referee(messages):
        text = messages[-1]["content"]
        assert "rate the dialogue between the translator and the proofreader" in text
        assert "Translator: Un chat dort." in text and "Proofreader: Le chat dort sur le tapis rouge." in text
        return json.dumps({"Translator": {"evaluation": "loses words", "score": 4},
                           "Proofreader": {"evaluation": "restores them", "score": 9}})

    models = {"players.1": FunctionModel(player, name=SECRET[0]), "players.2": FunctionModel(player, name=SECRET[1]),
              "referee": FunctionModel(referee, name="referee-secret")}
    result = run(models, tmp_path, task="translation", sources=str(sources))
    games = rows(result.folder)
    assert len(games) == 2 and result.summary["max_runs"] == 1  # one item, both role assignments
    draft_bleu = round(BLEU(effective_order=True).sentence_score("Un chat dort.", [reference]).score / 100, 4)
    for g in games:
        assert g["scores"] == {"translator": 4.0, "proofreader": 9.0}
        assert g["metrics"]["translator"]["BLEU"] == draft_bleu < 0.5
        assert g["metrics"]["proofreader"]["BLEU"] == 1.0 and g["metrics"]["proofreader"]["chrF"] == 100.0
    s = result.summary
    assert s["scoring"] == {"repeat": "fixed", "scoring": "paper"}
    assert s["matrix"]["players.1"]["translator"]["mean"] == 4.0 and s["matrix"]["players.2"]["proofreader"]["mean"] == 9.0
    assert s["role_measures"]["players.1"]["proofreader"]["BLEU"] == 1.0
    assert {(q["translator"], q["BLEU translator"], q["BLEU proofreader"], q["score proofreader"]) for q in s["pairs"]} \
        == {("players.1", draft_bleu, 1.0, 9.0), ("players.2", draft_bleu, 1.0, 9.0)}  # Table 3's b_T, b_Pr, s_Pr
    from judgeagent.protocols import get_protocol

    headline = get_protocol("dynaeval").headline(s)
    assert headline["translation: players.2 as translator BLEU"] == draft_bleu
    report = (result.folder / "report.md").read_text()
    assert "## Other measures by role" in report and "scoring=paper" in report


MBPP = Path("/work/shared/data/papers/mbpp/mbpp.jsonl")


def test_mbpp_code_game_as_in_the_paper_referee_scores_and_pass_at_1_per_round(tmp_path):
    """scoring=paper on MBPP's own file: a wrong draft, a review, the reference solution as the revision, the
    reviewer's `over`: Pass@1 per programmer turn 0, 1, 1 (the accepted code stands); the referee's 1-10 per
    role are the seats' scores; the code runs in the bubblewrap sandbox."""
    from tests.conftest import DATA

    mbpp = DATA / "papers" / "mbpp" / "mbpp.jsonl"
    records = {r["text"].strip(): r for r in map(json.loads, mbpp.read_text().splitlines())}

    def record_of(messages):
        return next(r for text, r in records.items() if text in "\n".join(m["content"] for m in messages))

    def player(messages):
        if "code reviewer" in messages[0]["content"]:
            return "over" if "continue to submit review comments" in messages[-1]["content"] else \
                "Code correctness: it returns None. Code clarity: fine. Efficiency: fine."
        r = record_of(messages)
        name = re.search(r"def (\w+)\(", r["code"]).group(1) if "Reviewer:" not in messages[-1]["content"] else None
        return f"```python\ndef {name}(*args):\n    return None\n```" if name else f"```python\n{r['code']}\n```"

    asked = []

    def referee(messages):
        asked.append(messages[-1]["content"])
        return json.dumps({"Programmer": {"evaluation": "fixed it", "score": 6},
                           "Reviewer": {"evaluation": "found it", "score": 8}})

    models = {"players.1": FunctionModel(player, name=SECRET[0]), "players.2": FunctionModel(player, name=SECRET[1]),
              "referee": FunctionModel(referee, name="referee-secret")}
    result = run(models, tmp_path, task="code", problems=str(mbpp), items=2, seed=1)
    games = rows(result.folder)
    assert len(games) == 4 and len({g["item"] for g in games}) == 2
    assert all(11 <= int(g["item"].split("/")[1]) <= 510 for g in games)  # MBPP's test split
    for g in games:
        m = g["metrics"]["programmer"]
        assert g["scores"] == {"programmer": 6.0, "reviewer": 8.0} and g["end"] == "consensus" and g["rounds"] == 4
        assert [m[f"pass@1 round {k}"] for k in (1, 2, 3)] == [0.0, 1.0, 1.0], m
        assert m["draft"]["status"] == "failed" and m["final"]["status"] == "passed"
    assert all("rate both a programmer and a reviewer" in a and "Reviewer: Code correctness" in a for a in asked)
    first = next(c for c in models["players.1"].calls if "programmer" in c[0]["content"])
    assert "Your code should pass these tests:" in first[-1]["content"] and "assert " in first[-1]["content"]
    assert not any(x in t for t in prompts_of(models) for x in (*SECRET, "referee-secret", "players."))
    s = result.summary
    assert s["unit"] == "referee score (1-10)" and s["role_measures"]["players.1"]["programmer"]["pass@1 round 1"] == 0
    assert s["isolation"].startswith("bubblewrap")
    assert [(q["programmer"], q["reviewer"], q["games"], q["score programmer"], q["score reviewer"],
             q["pass@1 round 3 programmer"]) for q in s["pairs"]] == \
        [("players.1", "players.2", 2, 6.0, 8.0, 1.0), ("players.2", "players.1", 2, 6.0, 8.0, 1.0)]  # Table 2's cells
    assert "## Pairs" in (result.folder / "report.md").read_text()


def test_code_with_paper_scoring_needs_a_referee(tmp_path):
    from judgeagent.errors import JudgeAgentError

    models = {"players.1": FunctionModel(lambda m: "x", name="a"), "players.2": FunctionModel(lambda m: "y", name="b")}
    with pytest.raises(JudgeAgentError, match="scoring=paper is scored by a referee model: give --role referee=MODEL"):
        run(models, tmp_path, task="code", problems=str(MBPP))
    assert not (tmp_path / "run").exists()


def test_idiom_pairwise_plays_every_ordered_pair_from_each_start_idiom(tmp_path):
    """idiom_play=pairwise (the paper's Section 3.1, Tables 1 and 4): 3 players make 6 ordered pairs, each
    from the same start idiom in a repetition; the early x late table gives s_E, s_L and the hits."""
    from judgeagent.protocols.dynaeval.tasks.idiom import idioms

    words = sorted(idioms())

    def good(messages):
        chain = messages[-1]["content"].split(" → ")
        return next(w for w in words if w[0] == chain[-1][-1] and w not in chain)

    models = {"players.1": FunctionModel(good, name=SECRET[0]),
              "players.2": FunctionModel(lambda m: "不知道", name=SECRET[1]),
              "players.3": FunctionModel(good, name=SECRET[2])}
    result = run(models, tmp_path, task="idiom", max_runs=2, idiom_moves=6)
    games = rows(result.folder)
    assert len(games) == 2 * 6 and all(set(g["cast"]) == {"Player A", "Player B"} for g in games)
    for r in (0, 1):
        played = [g for g in games if g["repetition"] == r]
        assert len({g["item"] for g in played}) == 1  # one start idiom per repetition, every pair from it
        assert sorted((g["cast"]["Player A"], g["cast"]["Player B"]) for g in played) == \
            sorted((a, b) for a in models for b in models if a != b)
    table = {(p["early"], p["late"]): (p["s_E"], p["s_L"], p["hits_E"], p["hits_L"], p["games"])
             for p in result.summary["positions"]}
    assert table[("players.1", "players.2")] == (1.0, 0.0, 1.0, 0.0, 2)  # one idiom, then the late one fails
    assert table[("players.2", "players.1")] == (0.0, 1.0, 0.0, 0.0, 2)  # the early one fails at once
    assert table[("players.1", "players.3")] == (0.5, 0.5, 3.0, 3.0, 2)  # a draw at 6 moves
    assert result.summary["players"]["players.2"]["mean"] == 0.0 and result.summary["players"]["players.1"]["n"] == 8
    assert result.summary["scoring"] == {"repeat": "fixed", "idiom_play": "pairwise"}
    assert "## Early x late" in (result.folder / "report.md").read_text()
    from judgeagent.protocols.dynaeval.config import DynaEvalConfig
    from judgeagent.protocols.dynaeval.tasks import TASKS

    starts = TASKS["idiom"].load(DynaEvalConfig(task="idiom"))  # the paper's 30 start idioms by default
    assert len(set(starts)) == 30 and set(starts) <= idioms()


# --- fidelity: the paper's own public goods game ----------------------------------------------------------------

PAPER_PGG = {  # DynaEval (ICLR 2024 submission), Appendix A.10.2, Figures 7-8: each model's sentence stating its
    # investment at steps 0-4, verbatim from the paper's transcript (the rest of each reply left out)
    "GPT-4": ["I will invest 5 coins.", "I will invest 6 coins.", "I will invest 7 coins.", "I will invest 8 coins.",
              "I will invest 10 coins."],
    "PaLM": ["I would like to invest 5 coins in the first round.", "I would like to invest 10 coins in the second round.",
             "I would like to invest 8 coins in the third round.", "I would like to invest 9 coins in the fourth round.",
             "For the fifth round, I've decided to invest all 10 of my coins"],
    "Claude2": ["I will invest 5 coins and explain that I am starting small", "For the second round, I plan to invest 7 "
                "coins", "the author will invest 8 coins out of 10 received.", "I will cautiously increase my "
                "investment to 9 coins for the 4th round.", "I've decided to invest all 10 of my coins."],
    "ChatGPT": ["I will invest 5 coins in the public pool.", "I plan to invest all 10 of my coins into the public pool "
                "for the next round.", "My decision is to invest 6 coins in the communal pool.", "I've decided to "
                "invest 8 coins for the current round.", "I've decided to invest all 10 coins for this final round."],
}


def test_the_papers_public_goods_transcript_replays_with_its_published_numbers(tmp_path):
    """The paper's appendix game (4 models, 5 rounds, mode 2) through our referee and payoff code.

    Published numbers it must reproduce: the mode-2 lists the players quote back (Claude2 at step 2: "[10, 10,
    7, 6]"; ChatGPT at step 3: "the lowest investment was 6 coins, while most players invested 7 or 8"; at step
    4: "between 8 and 9"), and Section 2.4's worked example (alpha 1.2: 100 invested -> 120, "120/4 = 30" to every
    player). The paper prints no payoffs for this game and no alpha for it; the payoffs asserted are the A.8
    rule's by hand at alpha 1.2, its one stated factor: pool 20+33+29+34+40 = 156 -> 156*1.2/4 = 46.8 to each,
    plus what each kept of its 50 coins (GPT-4 invested 36, PaLM 42, Claude2 39, ChatGPT 39)."""
    models = {f"players.{i}": FunctionModel(lambda m, said=said: said[round_of(m) - 1], name=name)
              for i, (name, said) in enumerate(PAPER_PGG.items(), 1)}
    result = run(models, tmp_path, rounds=5, mode=2, multiplier=1.2, endowment=10, max_runs=1)
    (game,) = rows(result.folder)
    by_model = {models[player].name: game["scores"][seat] for seat, player in game["cast"].items()}
    assert by_model == pytest.approx({"GPT-4": 14 + 46.8, "PaLM": 8 + 46.8, "Claude2": 11 + 46.8, "ChatGPT": 11 + 46.8})
    told = {round_of(c): c[-1]["content"] for c in models["players.1"].calls}
    assert "[5.0, 5.0, 5.0, 5.0]" in told[2]  # GPT-4 at step 1: "all players invested equally in the last round"
    assert "[10.0, 10.0, 7.0, 6.0]" in told[3]  # Claude2 at step 2 quotes [10, 10, 7, 6]
    assert "[8.0, 8.0, 7.0, 6.0]" in told[4] and "[9.0, 9.0, 8.0, 8.0]" in told[5]
    assert all(m["valid"] and m["parsed_by"] == "rule" for m in game["moves"])
    # Section 2.4: 100 invested, alpha 1.2, 4 players: 120 in the pool, 30 to each, the non-investors included.
    worked = payoffs([{"A": 60, "B": 40, "C": 0, "D": 0}], 100, 1.2)
    assert worked["C"] - 100 == pytest.approx(30) and worked["A"] == pytest.approx(40 + 30)
    # Mode 1 tells the income, "the total investment in round i multiplied by alpha/n" (A.8): 20, 33, 29, 34 coins.
    again = {k: FunctionModel(m.reply, name=m.name) for k, m in models.items()}
    run(again, tmp_path, "mode1", rounds=5, mode=1, multiplier=1.2, endowment=10, max_runs=1)
    told = {round_of(c): c[-1]["content"] for c in again["players.1"].calls}
    assert [re.search(r"earned (\S+) coins", told[r]).group(1) for r in (2, 3, 4, 5)] == ["6", "9.9", "8.7", "10.2"]


def test_mbpp_problems_are_read_from_the_native_file_and_their_reference_code_passes():
    """MBPP's asserts become the check; MBPP/56's function is itself named `check` (bound inside the test)."""
    from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests
    from judgeagent.protocols.dynaeval.tasks.code import parse_problems
    from judgeagent.protocols.dynaeval.tasks.mbpp import problem
    from tests.conftest import DATA

    mbpp = DATA / "papers" / "mbpp" / "mbpp.jsonl"
    loaded = parse_problems(mbpp, mbpp.read_text(), 1000, 0)
    assert len(loaded) == 500 and {p["task_id"] for p in loaded} == {f"MBPP/{i}" for i in range(11, 511)}
    records = {r["task_id"]: r for r in map(json.loads, mbpp.read_text().splitlines())}
    for task_id in (56, 17):
        p = problem(records[task_id], "mbpp.jsonl")
        assert run_tests(records[task_id]["code"], p["test"], p["entry_point"], SandboxLimits()).status == "passed"
        wrong = f"def {p['entry_point']}(*args):\n    return -1\n"
        assert run_tests(wrong, p["test"], p["entry_point"], SandboxLimits()).status == "failed"


def test_translation_reads_the_papers_iwslt_archives_into_paragraphs_with_references(tmp_path):
    """IWSLT 2017 en-zh from its own archive: paragraphs of whole segments within one talk, the reference from
    the reverse archive (same talk, same segment ids); the languages must be stated to match."""
    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols.dynaeval.tasks import iwslt
    from tests.conftest import DATA

    archive = DATA / "papers" / "iwslt2017" / "archive" / "2017-01-ted-test" / "texts" / "en" / "zh" / "en-zh.tgz"
    items, stamp, codes = iwslt.load(str(archive), 60)
    assert codes == ("en", "zh") and len(stamp.sha256) == 64 and all(i["reference"] for i in items)
    assert all(len(i["source"].split()) <= 60 or i["id"].split(":")[1].split("-")[0] == i["id"].split("-")[-1]
               for i in items)  # a paragraph passes max_words only when one segment alone does
    first = items[0]
    assert first["id"].startswith("2455:1-") and first["source"].startswith("So, this is a story about how we know")
    assert first["reference"].startswith("好吧，我要讲个故事")
    assert sum(int(i["id"].split("-")[-1]) - int(i["id"].split(":")[1].split("-")[0]) + 1 for i in items) == 1459

    def player(messages):  # the proofreader restores the reference; the translator drops it
        last = messages[-1]["content"]
        return next(i["reference"] for i in items if i["source"] in last) if "Translator:" in last else "不知道"

    referee = FunctionModel(lambda m: json.dumps({"Translator": {"evaluation": "-", "score": 2},
                                                  "Proofreader": {"evaluation": "-", "score": 9}}), name="r")
    models = {"players.1": FunctionModel(player, name="a"), "players.2": FunctionModel(player, name="b"),
              "referee": referee}
    with pytest.raises(JudgeAgentError, match="translates English to Chinese: give -o source_language=English "
                                              "-o target_language=Chinese"):
        run(models, tmp_path, "wrong", task="translation", sources=str(archive))
    result = run(models, tmp_path, task="translation", sources=str(archive), items=2, max_words=60,
                 source_language="English", target_language="Chinese")
    games = rows(result.folder)
    assert len(games) == 4 and all(g["metrics"]["proofreader"]["BLEU"] == 1.0 for g in games)
    assert all(g["metrics"]["translator"]["BLEU"] < 0.05 for g in games)


def test_a_run_begun_before_the_paper_options_keeps_its_identity_with_their_old_values():
    """Protocol.added_later: repeat=converge, scoring=judgeagent, idiom_play=all (with the old max_runs 10)
    leave the identity as before these options existed; the paper's defaults make a new identity."""
    from judgeagent.protocols import get_protocol
    from judgeagent.protocols.base import RunRequest
    from judgeagent.protocols.options import parse_options

    protocol = get_protocol("dynaeval")

    def identity_config(options):
        models = {"players": [FunctionModel(lambda m: "1", name="a"), FunctionModel(lambda m: "2", name="b")]}
        request = RunRequest(NONE, None, protocol.resolve_roles(models), parse_options(protocol, options))
        return protocol.identity_payload(request, None)["config"]

    old = identity_config(["repeat=converge", "scoring=judgeagent", "idiom_play=all", "max_runs=10"])
    new = identity_config([])
    assert not {"repeat", "scoring", "idiom_play"} & set(old) and old["max_runs"] == 10
    assert (new["repeat"], new["scoring"], new["idiom_play"], new["max_runs"]) == ("fixed", "paper", "pairwise", None)
    assert {k: v for k, v in new.items() if k not in ("repeat", "scoring", "idiom_play", "max_runs")} == \
        {k: v for k, v in old.items() if k != "max_runs"}
