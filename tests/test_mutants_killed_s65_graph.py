"""The test written against a seed-101 exploration survivor of grading/mcq.py that reads the HotpotQA-small graph:
apart from tests/test_mutants_killed_s65.py, whose tests need no graph and run first for eight modules."""
from __future__ import annotations


def test_an_item_that_is_already_multiple_choice_is_kept_as_it_is(hotpot_graph):
    # mcq.py `return Mcq(item, "choice")` (-> None): make-mcq passes a choice item through, options and all
    from judgeagent.benchmarks.item import Item
    from judgeagent.grading.mcq import DistractorBuilder, Mcq

    item = Item("q1", "Which city is the capital of France?", "Paris", {"A": "Paris", "B": "Rome"}, "A")
    assert DistractorBuilder(hotpot_graph, seed=0).convert([item]) == [Mcq(item, "choice")]



def test_a_distractor_sharing_half_its_words_with_one_chosen_is_too_like_it(hotpot_graph):
    # mcq.py `token_f1(...) < 0.5` (-> `<=`): "Red River" beside a chosen "Red Sea" (F1 0.5) is no new option
    from judgeagent.benchmarks.item import Item
    from judgeagent.grading.mcq import DistractorBuilder

    builder = DistractorBuilder(hotpot_graph, seed=0)
    item = Item("q1", "Which body of water borders Egypt to the east?", "Gulf of Suez")
    assert not builder._acceptable("Red River", item, ["Red Sea"])
    assert builder._acceptable("Nile", item, ["Red Sea"])


def test_a_gold_that_says_the_information_is_missing_is_skipped_with_the_reason(hotpot_graph):
    # mcq.py `Mcq(None, "skipped", ...)` ('skipped' emptied): the run's record says why the item has no options
    from judgeagent.benchmarks.item import Item
    from judgeagent.grading.mcq import DistractorBuilder, Mcq

    item = Item("q2", "What did the report conclude?", "Insufficient information")
    assert DistractorBuilder(hotpot_graph, seed=0).convert([item]) == [
        Mcq(None, "skipped", "the gold says the information is missing: no options to build")]
