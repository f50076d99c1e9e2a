"""`judgeagent paths-check GRAPH QUESTIONS` (#48 item 2): bench/paths.py's graph-over-dense ratios on a user's own
corpus and questions, with bootstrap intervals."""
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import pytest

from judgeagent.cli.main import main
from tests.conftest import DEMO

_SPEC = importlib.util.spec_from_file_location("bench_paths", Path(__file__).parents[1] / "bench" / "paths.py")
bench = sys.modules["bench_paths"] = importlib.util.module_from_spec(_SPEC)  # its dataclasses look it up
_SPEC.loader.exec_module(bench)


@pytest.fixture
def questions(tmp_path):
    """Six demo questions, one about a document the graph lacks (left out), one with a blank line after it."""
    records = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text().splitlines()[:6]]
    records.append({"question": "Who wrote a paper the corpus lacks?", "supporting_doc_ids": ["elsewhere-1"]})
    file = tmp_path / "q.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in records) + "\n")
    return file, [(r["question"], set(r["supporting_doc_ids"])) for r in records[:6]]


def test_paths_check_prints_bench_paths_figures_with_intervals(demo_graph, questions, capsys, monkeypatch):
    file, supported = questions
    assert main(["paths-check", str(demo_graph.path), str(file), "--seeds", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    # The same questions through bench/paths.py's own loop (its graph and question readers pointed at ours).
    monkeypatch.setattr(bench, "graph_for", lambda *a: demo_graph)
    monkeypatch.setattr(bench, "questions_for", lambda *a: supported)
    measured = bench.measure("demo", "demo", [0, 1], 3)
    want = measured["ways"]
    assert (got["questions"], got["skipped"], got["seeds"], got["hops"]) == (6, 1, 2, 3)
    # Dense top-3 by hand: the share of its chunks from support, and whether one is, per question and seed.
    from judgeagent.graph.sample import PathSampler

    dense, doc_of = PathSampler(demo_graph), dict(zip(demo_graph.chunk_ids, demo_graph.chunk_doc_ids))
    hand = [[doc_of[c] in support for c in dict.fromkeys(dense.dense([q], 3, k * 1_000_003 + i))]
            for i, (q, support) in enumerate(supported) for k in range(2)]
    assert got["dense"]["chunk_share"] == pytest.approx(sum(sum(h) / len(h) for h in hand) / 12)
    assert got["dense"]["touch_share"] == pytest.approx(sum(any(h) for h in hand) / 12)
    assert 0 < got["dense"]["chunk_share"] < 1
    for way in ("graph", "dense"):
        for key in ("chunk_share", "touch_share", "docs_per_path", "distinct_paths"):
            assert got[way][key] == pytest.approx(want[way][key]), (way, key)
    for ratio, key in (("touch_ratio", "touch_share"), ("chunk_ratio", "chunk_share")):
        value = want["graph"][key] / want["dense"][key]
        assert got[ratio]["value"] == pytest.approx(value)
        assert got[ratio]["low"] <= value <= got[ratio]["high"]
    assert got["chunk_ratio"]["low"] < got["chunk_ratio"]["high"]  # the demo's shares vary by question
    # Dense at the graph's spread: every demo path matched, over as many documents; the bench's line the same.
    spread = measured["spread"]
    assert (got["unmatched"], spread["unmatched"], spread["paths"]) == (0, 0, 12)
    assert got["spread"]["docs_per_path"] == pytest.approx(got["graph"]["docs_per_path"]) == spread["docs_per_path"]
    assert got["spread"]["chunk_share"] == pytest.approx(spread["chunk_share"])
    assert got["spread_ratio"]["value"] == pytest.approx(got["graph"]["chunk_share"] / spread["chunk_share"])
    assert got["spread"]["chunk_share"] != got["dense"]["chunk_share"]  # the demo's paths spread wider than top-3
    # The questions furthest below dense, by hand: graph and dense shares per question, mean over the seeds.
    walks, rows = PathSampler(demo_graph), []
    for i, (q, support) in enumerate(supported):
        paths = [walks.sample([q], 3, seed=k * 1_000_003 + i) for k in range(2)]
        g = sum(sum(doc_of[c] in support for c in set(p.chunk_ids)) / len(set(p.chunk_ids)) for p in paths) / 2
        d = sum(sum(h) / len(h) for h in hand[2 * i:2 * i + 2]) / 2
        if g < d:
            rows.append((g - d, i, q, g, d, [doc_of[c] for c in paths[0].chunk_ids], paths[0].seed))
    rows.sort(key=lambda r: r[:2])
    hops = [[doc_of[c] in support for c in walks.sample([q], 3, seed=k * 1_000_003 + i).chunk_ids]
            for i, (q, support) in enumerate(supported) for k in range(2)]
    assert got["graph_by_hop"] == pytest.approx([sum(h[k] for h in hops) / 12 for k in range(3)])
    assert got["dense_by_rank"] == pytest.approx([sum(h[k] for h in hand) / 12 for k in range(3)])
    assert got["graph_by_hop"][0] > got["graph_by_hop"][2]  # the demo's paths leave the supporting article
    assert (len(rows), len(got["misses"])) == (6, 5)  # every demo question is below dense; five are listed
    assert [(m["question"], m["graph_share"], m["dense_share"], m["path_docs"], m["seed"])
            for m in got["misses"]] == [(q, pytest.approx(g), pytest.approx(d), docs, seed)
                                        for _, _, q, g, d, docs, seed in rows[:5]]
    assert all(m["support"] == sorted(supported[[q for q, _ in supported].index(m["question"])][1])
               for m in got["misses"])
    assert main(["paths-check", str(demo_graph.path), str(file), "--seeds", "2", "--misses", "1"]) == 0
    text = capsys.readouterr().out
    first = got["misses"][0]
    assert text.count("graph: from ") == 1
    assert f" 1. graph {first['graph_share']:.3f}, dense {first['dense_share']:.3f}: {first['question']}\n" in text
    assert f"; support {first['support'][0]}*" in text
    assert (f"  by position, chunk from support: graph hop {got['graph_by_hop'][0]:.3f} / "
            f"{got['graph_by_hop'][1]:.3f} / {got['graph_by_hop'][2]:.3f}; dense rank {got['dense_by_rank'][0]:.3f}") in text
    assert text.startswith("6 questions (1 left out: none of their supporting documents is in the graph), 2 seeds")
    assert (f"RATIO graph / dense top-3, chunks from supporting documents: {got['chunk_ratio']['value']:.3f} "
            f"(95% interval {got['chunk_ratio']['low']:.3f}-{got['chunk_ratio']['high']:.3f})") in text
    assert (f"RATIO graph / dense at the graph's spread, chunks from supporting documents: "
            f"{got['spread_ratio']['value']:.3f} (95% interval") in text
    assert "at the graph's spread (dense's top chunks over as many documents as each path)" in bench.render(
        measured, 2, 3)


def test_paths_check_sets_each_graph_path_beside_dense_at_its_spread(hotpot_graph):
    """HotpotQA small (two supporting paragraphs per question), where dense at the graph's spread and the graph's
    own paths take different shares: the spread way by hand, path by path."""
    from judgeagent.graph.relevance import check_paths, dense_at_spread, read_supported_questions
    from judgeagent.graph.sample import PathSampler
    from tests.conftest import DATA

    found, _ = read_supported_questions(DATA / "hotpotqa" / "small.questions.jsonl", hotpot_graph)
    got = check_paths(hotpot_graph, found, seeds=2, resamples=200, misses=len(found))
    walks, dense = PathSampler(hotpot_graph), PathSampler(hotpot_graph)
    doc_of = dict(zip(hotpot_graph.chunk_ids, hotpot_graph.chunk_doc_ids))
    graph, spread, hops, repeats, below, ties = [], [], [], 0, set(), 0
    for i, (q, support) in enumerate(found):
        ranked = dense.dense([q], 50, 0)
        top = [sum(doc_of[c] in support for c in dense.dense([q], 3, k * 1_000_003 + i)) / 3 for k in range(2)]
        for k in range(2):
            walked = walks.sample([q], 3, seed=k * 1_000_003 + i).chunk_ids
            hops.append([doc_of[c] in support for c in walked])
            repeats += len(set(walked)) < len(walked)
            path = list(dict.fromkeys(walked))
            by_hand = dense_at_spread(ranked, doc_of, len(path), len({doc_of[c] for c in path}))
            assert by_hand is not None
            graph.append(sum(doc_of[c] in support for c in path) / len(path))
            spread.append(sum(doc_of[c] in support for c in by_hand) / len(by_hand))
        mine = sum(graph[-2:]) / 2
        below |= {q} if mine < sum(top) / 2 - 1e-12 else set()
        ties += abs(mine - sum(top) / 2) < 1e-12
    assert got.unmatched == 0
    assert got.spread.chunk_share == pytest.approx(sum(spread) / 50)
    assert got.spread_ratio.value == pytest.approx(sum(graph) / sum(spread))
    assert got.spread.chunk_share != got.graph.chunk_share != got.dense.chunk_share  # three different measures
    # By hop: the chunk at each position, a repeated one too (a walk through an entity with no other chunk).
    assert repeats > 0
    assert got.graph_by_hop == pytest.approx([sum(h[k] for h in hops) / 50 for k in range(3)])
    # Misses: exactly the questions strictly below dense (some are level with it), the furthest first.
    assert ties > 0 and {m.question for m in got.misses} == below
    assert [m.graph_share - m.dense_share for m in got.misses] == sorted(m.graph_share - m.dense_share
                                                                         for m in got.misses)


def test_paths_the_ranking_cannot_match_leave_the_spread_line_weighted_by_path(demo_graph, questions):
    """Every second path is all four chunks of one demo article (the test's choice, on the real graph and ranking):
    where the ranking's first article has three chunks it cannot match it. Those paths leave the spread way and its
    ratio, counted, and a question keeping one path weighs one path, as in bench/paths.py."""
    from dataclasses import replace

    from judgeagent.graph.relevance import SEED_STRIDE, check_paths, dense_at_spread, render_check
    from judgeagent.graph.sample import PathSampler

    doc_of = dict(zip(demo_graph.chunk_ids, demo_graph.chunk_doc_ids))
    whole = [c for c in demo_graph.chunk_ids if doc_of[c] == "demo-03"]
    assert len(whole) == 4

    class Forced(PathSampler):
        def sample(self, questions, hops=3, seed=0, **kw):
            path = super().sample(questions, hops, seed, **kw)
            return replace(path, chunk_ids=whole) if seed >= SEED_STRIDE else path

    _, supported = questions
    found = [(q, frozenset(s)) for q, s in supported]
    got = check_paths(demo_graph, found, seeds=2, hops=4, resamples=200, sampler=Forced(demo_graph))
    walks, dense, graph, spread, left = PathSampler(demo_graph), PathSampler(demo_graph), [], [], 0
    for i, (q, support) in enumerate(found):
        ranked = dense.dense([q], len(doc_of), 0)
        for path in (walks.sample([q], 4, seed=i).chunk_ids, whole):
            path = list(dict.fromkeys(path))
            match = dense_at_spread(ranked, doc_of, len(path), len({doc_of[c] for c in path}))
            left += match is None
            if match is not None:
                graph.append(sum(doc_of[c] in support for c in path) / len(path))
                spread.append(sum(doc_of[c] in support for c in match) / len(match))
    assert 0 < left < len(found) and got.unmatched == left
    assert got.spread.chunk_share == pytest.approx(sum(spread) / len(spread))
    assert got.spread_ratio.value == pytest.approx(sum(graph) / sum(spread))
    assert got.spread_ratio.value != pytest.approx(got.graph.chunk_share / got.spread.chunk_share)
    assert f"{left} graph paths left out: the ranking could not match them" in render_check(got)


def test_ratio_weighs_paths_and_resamples_whole_questions_the_same_for_both_ways():
    from judgeagent.graph.relevance import Ratio, _ratio

    # A question with one path weighs one path: (1 + 1 + 1 + 0) / 4 over 0.5.
    assert _ratio([[1, 1, 1], [0]], [[.5, .5, .5], [.5]], 200, .95).value == pytest.approx(1.5)
    # Questions are drawn, not paths: each question's paths average to dense's, so every draw gives 1.
    assert _ratio([[0, 1], [1, 0], [0, 1]], [[.5, .5]] * 3, 200, .95) == Ratio(1.0, 1.0, 1.0)
    # The same draw for both ways: graph twice dense on every question gives 2 on every draw.
    assert _ratio([[.2, .2], [.6, .6], [1., 1.]], [[.1, .1], [.3, .3], [.5, .5]], 200, .95) == Ratio(2.0, 2.0, 2.0)
    varied = [[1.0], [.2], [.6], [.9], [.1], [.5]], [[.5]] * 6
    wide, narrow = _ratio(*varied, 2000, .95), _ratio(*varied, 2000, .5)
    assert wide.low < narrow.low < narrow.high < wide.high
    # Dense never reaching support gives no ratio; a draw where it does not (but the graph does) no upper bound.
    assert _ratio([[1], [1]], [[0], [0]], 200, .95) == Ratio(None, None, None)
    open_top = _ratio([[1], [1]], [[0], [1]], 200, .95)
    assert (open_top.value, open_top.high) == (2.0, float("inf"))


def test_dense_at_spread_takes_the_ranking_s_first_chunks_over_as_many_documents():
    from judgeagent.graph.relevance import dense_at_spread

    ranked = ["a1", "a2", "b1", "a3", "c1", "b2"]
    doc_of = {c: c[0] for c in ranked}
    assert dense_at_spread(ranked, doc_of, 3, 2) == ["a1", "a2", "b1"]
    assert dense_at_spread(ranked, doc_of, 3, 3) == ["a1", "b1", "c1"]
    assert dense_at_spread(ranked, doc_of, 3, 1) == ["a1", "a2", "a3"]
    assert dense_at_spread(ranked, doc_of, 2, 2) == ["a1", "b1"]
    assert dense_at_spread(ranked, doc_of, 4, 3) == ["a1", "a2", "b1", "c1"]  # a3 would leave no slot for c
    assert dense_at_spread(ranked, doc_of, 3, 4) is None  # three chunks cannot span four documents
    assert dense_at_spread(["a1", "b1"], {"a1": "a", "b1": "b"}, 2, 1) is None  # the ranking has one chunk of a


def test_bench_paths_repeats_the_graph_way_over_schedules(demo_graph, questions, monkeypatch):
    """`bench/paths.py --schedules J`: schedule 0 is the run's own seeds, the others shift every seed; each
    figure's mean, standard error and lowest over the schedules."""
    _, supported = questions
    monkeypatch.setattr(bench, "graph_for", lambda *a: demo_graph)
    monkeypatch.setattr(bench, "questions_for", lambda *a: supported)
    result = bench.measure("demo", "demo", [0, 1], 3, schedules=3)
    picks, _ = bench.ways(demo_graph, 3)
    doc_of = dict(zip(demo_graph.chunk_ids, demo_graph.chunk_doc_ids))
    each = [bench.over_schedules(lambda q, seed, j=j: picks["graph"](q, seed + j * bench.SCHEDULE_SHIFT), supported,
                                 doc_of, [0, 1], 1) for j in range(3)]
    assert [e[k]["mean"] for e in each[:1] for k in ("distinct_paths", "docs_per_path", "chunk_share")] == \
        pytest.approx([result["ways"]["graph"][k] for k in ("distinct_paths", "docs_per_path", "chunk_share")])
    for key, figures in result["schedules"].items():
        if key == "schedules":
            assert figures == 3
            continue
        values = [e[key]["mean"] for e in each]
        assert figures["mean"] == pytest.approx(statistics.fmean(values)), key
        assert figures["se"] == pytest.approx(statistics.stdev(values) / 3 ** 0.5), key
        assert figures["lowest"] == min(values), key
    assert len({tuple(e["chunk_share"].values()) for e in each}) > 1  # the shifted seeds draw other paths
    text = bench.render(result, 2, 3)
    assert (f"graph over 3 schedules (seed k * 1_000_003 + i + j * 100_003): distinct paths "
            f"{result['schedules']['distinct_paths']['mean']:.3f}") in text


def test_bench_paths_prints_one_seed_and_a_dense_that_never_reaches_support(demo_graph, questions, monkeypatch):
    """With one seed every path is a cold one (no later-path time), and where dense takes no supporting chunk its
    ratios have no value: the bench says so rather than failing on a division."""
    _, supported = questions
    monkeypatch.setattr(bench, "graph_for", lambda *a: demo_graph)
    monkeypatch.setattr(bench, "questions_for", lambda *a: supported)
    result = bench.measure("demo", "demo", [0], 3)
    assert result["ways"]["graph"]["median_later_ms"] is None
    assert "median n/a (one seed: no later path) per later path" in bench.render(result, 1, 3)
    result["ways"]["dense"].update(chunk_share=0.0, touch_share=0.0)
    text = bench.render(result, 1, 3)
    assert "paths touching a supporting document: n/a" in text and "chunks from supporting documents: n/a" in text


def test_paths_check_refuses_questions_it_cannot_measure_in_one_line(demo_graph, tmp_path, capsys):
    file = tmp_path / "q.jsonl"
    cases = [('{"question": "Which rocket?", "supporting_doc_ids": "demo-05"}\n',
              f"{file}:1: field 'supporting_doc_ids' should be a list of document ids (strings), got a string"),
             ('{"question": "Which rocket?", "supporting_doc_ids": [5]}\n',
              f"{file}:1: field 'supporting_doc_ids' should be a list of document ids (strings), got a list holding "
              "a number"),
             ('{"question": "Which rocket?", "supporting_doc_ids": ["demo-05"]}\n{"q": "x"}\n',
              f"{file}:2: no field 'question' (fields: 'q'); name yours with --question-field"),
             ('{"question": "Which rocket?"}\n',
              f"{file}:1: no field 'supporting_doc_ids' (fields: 'question'); name yours with --support-field"),
             ('{"question": " ", "supporting_doc_ids": ["demo-05"]}\n',
              f"{file}:1: field 'question' should be the question's text, got an empty string"),
             ('["Which rocket?"]\n', f"{file}:1: a question should be a JSON object, got an array"),
             ('{"question": "Which rocket?", "supporting_doc_ids": ["hotpot:Rocket"]}\n',
              (f"{file}: none of its 1 questions has a supporting document in the graph (the graph's doc_ids look "
               "like 'demo-01'); give questions about its corpus")),
             ("\n", f"{file}: holds no questions; give one record per question with 'question' and "
                    "'supporting_doc_ids'")]
    for text, message in cases:
        file.write_text(text)
        assert main(["paths-check", str(demo_graph.path), str(file)]) == 1
        out, err = capsys.readouterr()
        assert out == "" and err == f"error: {message}\n"
    table = tmp_path / "q.csv"
    table.write_text("question,supporting_doc_ids\n")
    assert main(["paths-check", str(demo_graph.path), str(table)]) == 1
    assert capsys.readouterr().err == (f"error: {table}: questions are read from a .jsonl or .json file; convert it "
                                       "to JSON lines\n")


def test_bench_finds_the_shared_data_as_the_tests_do(tmp_path):
    """bench/paths.py (and bench/pools.py, which reads its DATA) looked for the splits only in ../shared/data beside
    the checkout, which a git worktree under /tmp lacks. Now (bench/shared_data.py): $JUDGEAGENT_DATA, or
    ../shared/data beside the checkout or beside its main checkout. Seen to fail with the old default (the --help
    lines)."""
    import os
    import subprocess

    data, checkout = tmp_path / "data", tmp_path / "wt" / "checkout"
    (data / "multihop_rag").mkdir(parents=True)
    assert bench.find_data(checkout, {"JUDGEAGENT_DATA": str(data)}) == data
    beside = tmp_path / "wt" / "shared" / "data"
    (beside / "multihop_rag").mkdir(parents=True)
    assert bench.find_data(checkout, {"JUDGEAGENT_DATA": str(tmp_path / "none")}) == beside
    env = {**os.environ, "JUDGEAGENT_DATA": str(data), "COLUMNS": "1000"}  # one line per option in --help
    for script in ("paths.py", "pools.py"):
        done = subprocess.run([sys.executable, str(Path(bench.ROOT) / "bench" / script), "--help"], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0 and f"(default {data})" in done.stdout, (script, done.stderr)


def test_a_bench_script_in_a_git_worktree_reads_the_main_checkout_s_data(tmp_path):
    """A git worktree made elsewhere (here beside no shared/ folder) reads the data beside the checkout it was cut
    from, with no JUDGEAGENT_DATA and no path written into bench/; a real `git worktree add`."""
    import subprocess

    from bench.shared_data import find_data, main_checkout

    main_repo, data = tmp_path / "work" / "main", tmp_path / "work" / "shared" / "data"
    (data / "multihop_rag").mkdir(parents=True)
    main_repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "x"],
                 ["worktree", "add", "-q", str(tmp_path / "elsewhere" / "wt"), "-b", "w"]):
        subprocess.run([*git, *args], cwd=main_repo, check=True, capture_output=True)
    worktree = tmp_path / "elsewhere" / "wt"
    assert main_checkout(worktree) == main_repo.resolve() and main_checkout(main_repo) is None
    assert find_data(worktree, {}) == data.resolve()
    assert find_data(tmp_path / "lone" / "checkout", {}) == tmp_path / "lone" / "shared" / "data"  # missing: said


def test_a_bench_script_without_the_data_says_so_in_one_line(tmp_path):
    """Where the data is not found, a bench script stops with one line naming the missing file and JUDGEAGENT_DATA
    (was a FileNotFoundError traceback from a worktree outside /work)."""
    import os
    import subprocess

    env = {**os.environ, "JUDGEAGENT_DATA": str(tmp_path)}  # a folder, without the splits
    done = subprocess.run([sys.executable, str(Path(bench.ROOT) / "bench" / "encoder_threads.py")], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    missing = tmp_path / "multihop_rag" / "medium.questions.jsonl"
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: {missing} not found: set JUDGEAGENT_DATA to the folder holding the shared datasets "
        "(multihop_rag/, hotpotqa/, ...; by default ../shared/data beside the checkout)"]


def test_bench_paths_counts_the_repeated_paths_a_run_keeps(tmp_path, hotpot_graph):
    """bench/paths.py's "graph in a run" line counts the paths a JudgeAgent run's rounds repeat after its retries:
    the same count as a real run's records (one-question batches, 5 rounds, HotpotQA small, where a question's
    pool can hold a single walk, so some rounds must repeat)."""
    from judgeagent import EvalConfig
    from judgeagent.benchmark import load_benchmark
    from judgeagent.graph.sample import PathSampler
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from tests.conftest import DATA
    from tests.scripted import Roles, Script

    questions = load_benchmark(DATA / "hotpotqa" / "small.questions.jsonl", limit=6)
    script = Script(target_right=True)
    with Roles(script) as roles:
        for item in questions.items:
            script.golds[item.question] = item.gold
        result = evaluate(questions, hotpot_graph, "tgt", interviewer="int", run_dir=tmp_path / "run", cache=False,
                          config=EvalConfig(batch_size=1, rounds=5, questions_per_round=1),
                          registry=roles.registry("tgt"))
    rows = [json.loads(line) for line in (result.folder / "records.jsonl").read_text().splitlines()]
    paths: dict[int, dict[int, tuple[str, ...]]] = {}
    for r in rows:
        if r["stage"] == "extension":
            paths.setdefault(r["batch"], {})[r["round"]] = tuple(r["path"]["chunk_ids"])
    assert [len(rounds) for rounds in paths.values()] == [5] * 6
    sampler, texts = PathSampler(hotpot_graph), [i.question for i in questions.items]
    walked = bench.run_paths(sampler, texts, 3, EvalConfig(batch_size=1, rounds=5))
    assert [[k for _, k in rounds] for rounds in walked] == [[paths[b][r] for r in range(1, 6)] for b in range(6)]
    kept = sum(5 - len(set(rounds.values())) for rounds in paths.values())
    counted = bench.run_repeats(sampler, texts, 3, 1, 5)
    assert (counted["round_paths"], counted["kept_repeats"]) == (30, kept)
    assert counted["first_repeats"] > kept > 0  # the retries find new paths for some rounds, not for all
