"""Mutation testing over `ast`: put one small defect at a time into a module, run the tests that cover it, and
list the defects no test caught (the surviving mutants). `make mutants` runs every target below.

    .venv/bin/python scripts/mutants.py [MODULE ...] [--out bench/mutants.md] [--timeout SECONDS] [--list]
        [--tests TEST ...] [--sample N --seed S] [--only KEY ...]

Each module's mutants run only the tests that cover it (TARGETS below; `--tests` names others, e.g. one file or
`tests/test_x.py::test_y`). `--sample N --seed S` runs a random N of a module's mutants (the same N for a seed),
and the report says so: its score then estimates the module's. `--only KEY` runs only the mutants whose key starts
with KEY (a survivor's `module:line`, to check the test written to kill it). The report keeps the rows of modules
not run this time.

Each mutant changes one node: a comparison (`<` for `<=`, `==` for `!=`, `in` for `not in`, ...), an arithmetic
or boolean operator (`+`/`-`, `*`/`/`, `and`/`or`), a `not` removed, a constant (a number + 1, `True`/`False`
swapped, a string emptied), or a `return` of None. The module file is rewritten in place for the test run and
restored afterwards, whatever happens (Ctrl-C and SIGTERM included; after a SIGKILL, the next run puts the
module back from the copy it left beside it). A mutant is killed when the tests fail (or time out twice), and
survives when they pass: then either a test is missing, or the mutant does not change behaviour (an equivalent
mutant: list it in EQUIVALENT with the reason, and it is left out of the score). docs/testing.md says how to read
the report.
"""
from __future__ import annotations

import argparse
import ast
import copy
import importlib.util
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_RULE_TESTS = ["tests/test_mutants_killed_s59.py", "tests/test_mutants_killed_rules.py", "tests/test_answer_rules.py",
               "tests/test_answers.py", "tests/test_mutants_killed_grading.py", "tests/test_chinese_text.py",
               "tests/test_equivalence.py"]
_S60 = "tests/test_mutants_killed_s60.py"
"""The seven free-text rule modules' word lists, each word named by the verdict it causes (stop 60): first for them."""
_S61 = "tests/test_mutants_killed_s61.py"
"""The tests written against the survivors of stop 60's seed-61 sample (name_rules, answers, calibration,
equivalence, judge, runs, rows)."""
_S62 = "tests/test_mutants_killed_s62.py::test_"
_S63 = "tests/test_mutants_killed_s63.py::test_"
_S64 = "tests/test_mutants_killed_s64.py::test_"
_S65 = "tests/test_mutants_killed_s65.py"
"""The tests written at stop 62 against seed 64's, the seed-101 exploration's and seed 65's survivors (none needs a
graph or the sandbox; seconds in all: first in each list)."""
"""The tests written against the survivors of stop 60's seed-62 sample, named one by one in each module's list (the
file's mcq test reads the HotpotQA-small graph: only mcq.py's list runs it)."""
_S69 = "tests/test_mutants_killed_s69.py::test_"
"""The tests written at stop 69 against the first samples of graph/relevance.py, models/usage.py and models/cache.py
(seed 1), named one by one in each module's list."""
_S69B = "tests/test_mutants_killed_s69b.py::test_"
"""The tests written at stop 69's second part against the first samples of models/retry.py, graph/specificity.py and
graph/walk.py (seed 1), named one by one in each module's list."""
_S70 = "tests/test_mutants_killed_s70.py::test_"
"""The tests written at stop 70 against the first samples of models/client.py and files.py (seed 1): `client_` and
`files_` begin each module's."""
_S70_SAMPLE = "tests/test_mutants_killed_s70_sample.py::test_"
"""The tests written at stop 70 against the first sample of graph/sample.py (seed 1), named one by one in its list."""
_S71 = "tests/test_mutants_killed_s71_spec.py::test_"
"""The tests written at stop 71 against the first samples of models/spec.py and chunking.py (seed 1): `spec_` and
`chunks_` begin each module's, named one by one in its list."""
_S71B = "tests/test_mutants_killed_s71_benchmarks.py"
"""The tests written at stop 71 against the first samples of benchmarks/formats.py and benchmarks/item.py (seconds in
all, real files under tmp_path: first in both lists)."""
_S71V = "tests/test_mutants_killed_s71_validate.py::test_"
"""The tests written at stop 71 against the first samples of protocols/judgeagent/validate.py and records.py (seed 1),
named one by one in each module's list."""
_S71_E = "tests/test_mutants_killed_s71_corpus.py::test_"
"""The tests written at stop 71 against the first samples of corpus.py and embedding.py (seed 1): `corpus_` and
`embedding_` begin each module's, named one by one in its list."""
_S71_D = "tests/test_mutants_killed_s71_batch.py::test_"
"""The tests written at stop 71 against the first samples of protocols/judgeagent/batch.py (seeds 1-3), named one
by one in its list (the demo graph's: set JUDGEAGENT_TEST_GRAPH_CACHE)."""
_S71_F = "tests/test_mutants_killed_s71_cloze.py::test_"
"""The tests written at stop 71 against the first samples of protocols/judgeagent/cloze.py (seeds 1 to 7), named one by
one in its list (the context-length one builds a two-document graph: seconds)."""
_TEXT = "tests/test_mutants_killed_text.py::test_"
_B = "tests/test_mutants_killed_b.py::test_"
_W3 = "tests/test_mutants_killed_w3.py::test_"
# calibration.py's tests before tests/test_mutants_killed_text.py: the scripted judges (the embedded model's left out)
_CALIBRATION_TESTS = [
    "tests/test_answers.py::test_a_faithful_judge_passes_calibration_when_aliases_are_other_acceptable_answers",
    "tests/test_answers.py::test_probes_whose_right_answer_is_ambiguous_are_not_asked",
    "tests/test_answers.py::test_hard_negatives_fail_a_careless_judge_that_other_golds_let_through",
    "tests/test_judging_e2e.py::test_calibration_pairs_are_balanced_seeded_and_right_by_construction",
    "tests/test_judging_e2e.py::test_calibration_stops_paying_for_a_judge_that_cannot_pass",
    "tests/test_protocols.py::test_unvetted_says_why_a_judges_numbers_are_not_measured"]

# the text helpers' tests (grading/text.py, case.py, rivals.py), written against their survivors
_HELPER_TESTS = [_TEXT + name for name in (
    "each_negation_word_keeps_a_short_reply_from_matching_the_gold",
    "each_chinese_negation_keeps_a_reply_from_matching_the_gold", "what_turns_the_cjk_reading_on",
    "a_number_word_or_numeral_is_read_as_its_value", "a_scaled_number_counts_under_both_readings",
    "token_f1_of_empty_answers_and_by_hand", "a_refusal_has_at_most_thirty_words",
    "zh_letters_reads_the_committed_letter", "a_reply_keeps_its_first_sentence_apart",
    "a_reply_its_case_and_the_rivals_index_are_frozen", "the_rivals_within_a_reply_are_those_all_of_whose_words_it_says")]

# what reaches grading/forms.py and phrases.py in seconds: the tests written against their survivors, then every
# free-text rule (word forms, contrast words, lists, a name before the gold) through `check_free_text`, the number
# and yes/no rules, the text helpers
_FORMS_TESTS = ["tests/test_mutants_killed_forms.py", "tests/test_mutants_killed_rules.py",
                "tests/test_answer_rules.py", "tests/test_mutants_killed_numbers.py", *_HELPER_TESTS]

_REPORT_RUNS = [
    "tests/test_mutants_killed_s60_report.py", "tests/test_validate.py::test_report_export_and_compare", "tests/test_validate.py::test_bad_run_folders",
    "tests/test_validate.py::test_a_run_written_without_the_learned_step_validates_and_reports_without_it",
    "tests/test_evaluate.py::test_dense_paths_are_a_second_baseline_and_the_report_compares_relevance",
    "tests/test_validity.py::test_planted_gap_run_end_to_end", "tests/test_report_reference.py"]

TARGETS: dict[str, list[str]] = {
    # module -> the tests that cover it (run with -x: the first failure kills the mutant)
    "judgeagent/metrics.py": ["tests/test_metrics.py"],
    "judgeagent/grading/leakage.py": ["tests/test_leakage.py"],
    "judgeagent/grading/choice.py": [_S65,
        _S63 + "a_reply_opening_with_an_option_text_then_naming_another_letter_chose_the_letter",
        _S62 + "a_reply_opening_with_an_option_text_says_it_was_read_from_the_text",
        _S62 + "an_option_ruled_out_with_its_bracketed_letter_and_text_is_not_the_choice",
        "tests/test_mutants_killed.py::test_a_bare_lowercase_letter_in_quotes_is_read_case_blind",
        "tests/test_mutants_killed.py::test_each_connective_after_a_letter_keeps_it_an_option",
        "tests/test_mutants_killed.py::test_an_option_ruled_out_after_or_before_it_is_no_choice",
        "tests/test_mutants_killed.py::test_several_correct_options_by_hand",
        "tests/test_mutants_killed.py::test_one_option_by_hand_letters_texts_json_and_reasons",
        "tests/test_answer_rules.py", "tests/test_answers.py"],
    # KIEval's numbers and report sections: the hand-computed scoring tests, then the scripted runs whose report.md
    # is read (the embedded-model and graph tests add minutes and check nothing of this module's more)
    "judgeagent/protocols/kieval/report.py": [
        "tests/test_mutants_killed_kieval.py",
        *(f"tests/test_kieval.py::test_{name}" for name in (
            "linear_all_strong_is_one_and_all_poor_is_zero", "linear_weights_and_normalisation_by_hand",
            "linear_an_early_stop_after_turn_one_counts_the_rest_as_poorest",
            "linear_failed_turns_count_as_poorest_and_an_unevaluated_conversation_has_no_score",
            "linear_run_numbers_by_hand", "paper_scoring_gives_the_authors_numbers",
            "paper_decay_is_the_authors_at_any_round_count",
            "paper_scoring_leaves_failed_turns_out_and_counts_the_stopping_turn_as_a_round",
            "the_ablations_switch_off_the_decay_and_the_early_stop", "kieval_end_to_end", "verification_can_be_skipped",
            "out_of_range_scores_get_one_repair_then_a_recorded_failure",
            "an_evaluator_that_never_answers_scores_nothing", "rescore_scores_the_stored_conversations_with_another_evaluator")), "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference", "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote"],
    # the sandbox's verdict path (`_Run._verdict`, `_why_ended`, `_last_line`: sample it with `--only` on its lines):
    # the tests that run code under bubblewrap, the HumanEval-wide one left out (minutes, the same verdicts)
    "judgeagent/protocols/dynaeval/sandbox.py": [
        "tests/test_mutants_killed_sandbox.py", "tests/test_mutants_killed_s63.py", "tests/test_sandbox.py::test_canonical_solutions_pass_and_broken_ones_fail",
        "tests/test_sandbox.py::test_code_cannot_fake_a_pass", "tests/test_sandbox.py::test_an_endless_loop_is_stopped",
        "tests/test_sandbox.py::test_unbounded_memory_is_stopped", "tests/test_sandbox.py::test_the_network_is_refused",
        "tests/test_sandbox.py::test_a_cancelled_run_stops_at_once", "tests/test_mutants_killed_s65_sandbox.py",
        "tests/test_sandbox.py::test_writes_outside_its_folder_and_new_processes_are_refused",
        "tests/test_sandbox.py::test_a_bare_except_cannot_swallow_the_refusal",
        "tests/test_sandbox.py::test_correct_code_that_prints_reads_stdin_or_imports_passes",
        "tests/test_sandbox_kernel.py::test_a_wrong_answer_cannot_name_its_own_failure",
        "tests/test_sandbox_kernel.py::test_a_real_memory_hog_keeps_its_label_where_a_cgroup_counts_it",
        "tests/test_sandbox_kernel.py::test_a_foreign_abi_kills_the_code", "tests/test_sandbox_attacks.py",
        "tests/test_mutants_killed_sandbox_walls.py"],
    # the walls (seccomp filter, host uid, cgroups, the interpreter's mirror): the cgroup counters read by hand, the
    # kernel-state attacks and caps (as root and as a user), and the floods that meet the limits
    "judgeagent/protocols/dynaeval/walls.py": [
        "tests/test_mutants_killed_sandbox.py", "tests/test_sandbox_kernel.py",
        "tests/test_sandbox_attacks.py::test_floods_and_hangs_end_at_their_limits"],
    "judgeagent/protocols/judgeagent/scoring.py": [
        "tests/test_mutants_killed_grading.py::test_the_score_of_no_questions_is_zero",
        "tests/test_evaluate.py::test_points_and_tiers",
        "tests/test_judgeagent_fidelity.py::test_unlabelled_questions_score_as_the_authors_code_or_as_the_paper_says"],
    "judgeagent/protocols/interviewer/grade.py": ["tests/test_mutants_killed_grading.py"] + [
        "tests/test_interviewer.py::test_" + name for name in (
        "a_boxed_math_reply_is_graded_as_math_by_default_and_by_the_checker_with_answers_text",
        "math_answers_written_another_way_are_equal_and_wrong_ones_are_not",
        "long_answers_are_scored_by_atomic_facts_with_the_authors_recall", "table_4_score_columns_come_out_of_our_scoring",
        "the_authors_test_cases_score_as_their_metrics", "real_items_a_rounded_medqa_gold_and_a_factual_hotpotqa_gold",
        "a_follow_up_is_asked_again_up_to_m_times_until_answered")],
    # the free-text rules and the verdict they return: the rule tests (real spaCy for word forms), then the checker's
    **{f"judgeagent/grading/{name}.py": _RULE_TESTS for name in (
        "verdict", "numeric", "number_rules", "yes_no", "phrase_rules", "name_rules", "answers", "free_text")},
    "judgeagent/grading/answers.py": [
        *_RULE_TESTS, _S61, _S63 + "an_open_question_reads_another_items_kind_in_lower_case_as_no_other_answer"],
    # the phrase and name rules: their word lists named word by word first (stop 60), then the rule tests
    "judgeagent/grading/phrase_rules.py": [_S60, *(_S62 + name for name in (
        "a_gold_opening_a_list_after_its_article_is_not_the_first_sentences_subject",
        "the_phrase_rule_reads_neither_an_essay_nor_a_single_word")), *(_S63 + name for name in (
        "a_gold_inside_a_word_of_the_question_is_not_in_the_question",
        "a_gold_the_question_names_is_read_in_the_questions_word_order_in_every_process")), *_RULE_TESTS],
    "judgeagent/grading/name_rules.py": [_S65, _S60, *_RULE_TESTS, _S61],
    # the number and yes/no rules: their word lists word by word, the tests written against their survivors, then
    # the rule tests
    **{f"judgeagent/grading/{name}.py": [_S65, _S60, "tests/test_mutants_killed_numbers.py", *_RULE_TESTS]
       for name in ("numeric", "number_rules", "yes_no")},
    # free_text.py's own steps, mcq.py and calibration.py: tests/test_mutants_killed_text.py's tests of the module
    # first (mcq's on the HotpotQA-small graph), then the tests that covered it before
    "judgeagent/grading/free_text.py": [_TEXT + name for name in (
        "an_empty_or_blank_reply_is_wrong_and_a_gold_of_nothing_leaves_it_to_the_judge",
        "the_exact_match_is_right_and_says_so", "a_refusal_is_right_only_where_the_gold_refuses_too",
        "token_f1_at_the_threshold_accepts_and_says_its_score_and_threshold",
        "a_negated_reply_is_not_accepted_by_token_f1", "a_gold_that_lists_things_needs_every_one_of_them")] + _RULE_TESTS,
    "judgeagent/grading/mcq.py": [_S65, "tests/test_mutants_killed_s65_graph.py", _S62 + "a_converted_items_record_cannot_be_changed_and_can_be_counted_in_a_set",
                                  _S62 + "a_builder_without_a_seed_draws_as_seed_zero"] + [
        _TEXT + name for name in (
        "check_options_names_what_is_wrong_word_for_word", "a_binary_gold_gets_its_opposite_cased_like_it",
        "an_item_whose_options_cannot_have_one_gold_is_skipped_with_the_reason",
        "a_year_moves_by_one_to_ten_years_either_way", "a_small_count_moves_by_one_to_five_and_stays_positive",
        "a_large_number_moves_by_a_factor_written_like_the_gold",
        "a_number_inside_a_longer_gold_or_no_number_is_not_a_numeric_item",
        "graph_distractors_are_of_the_golds_kind_a_capitalised_gold_a_name",
        "the_graphs_first_entity_can_be_a_distractor",
        "a_distractor_is_never_a_word_of_the_question_but_may_be_inside_one",
        "a_lowercase_entity_is_shown_capitalised_beside_a_capitalised_gold")] + [
        f"tests/test_mcq.py::test_{name}" for name in (
            "check_options_catches_duplicates_and_a_missing_gold", "numbers_years_and_binary_golds",
            "a_converted_item_round_trips_as_a_benchmark_file",
            "every_converted_item_has_one_gold_and_distinct_options[hotpotqa-hotpot_graph]", "options_are_seeded_and_reproducible")],
    "judgeagent/grading/calibration.py": [_S65,
        _S63 + "a_hard_negative_that_is_the_gold_of_the_same_question_elsewhere_is_not_asked",
        "tests/test_learned_run.py::test_a_judge_that_fails_calibration_says_the_step_settles_the_rest",
        _S62 + "a_near_miss_that_is_the_gold_itself_is_never_a_wrong_answer",
        _S62 + "a_hard_negative_of_a_numeric_gold_is_a_changed_number"] + [_TEXT + name for name in (
        "two_usable_golds_are_enough_for_balanced_pairs_and_yes_no_maybe_are_not_usable",
        "an_alias_that_is_yes_no_or_maybe_is_never_a_probe", "a_number_in_words_gets_a_numeral_of_two_to_nine_added",
        "a_choice_item_is_probed_with_its_other_options_never_its_own",
        "the_default_checker_probes_with_other_golds_and_hard_negatives_only_when_asked",
        "the_calls_a_dry_run_counts_follow_the_policy", "a_faithful_judge_passes_at_the_bounds_and_is_used",
        "a_judge_that_accepts_everything_fails_and_says_what_was_needed",
        "a_judge_that_gives_no_decision_counts_every_pair_as_an_error_and_stops_the_strict_policy",
        "rates_without_a_negative_pair_show_a_dash_and_do_not_pass",
        "without_calibration_the_judge_is_used_only_when_trusted", "unvetted_names_why_word_for_word",
        "a_failed_calibration_is_said_once_when_there_is_someone_to_tell")] + _CALIBRATION_TESTS + [_S61],
    # what every free-text rule reads (the reply and golds, the rivals' index, the text and word-form helpers, the
    # contrast words): tests/test_mutants_killed_text.py's tests of the helpers first, then the rule tests
    **{f"judgeagent/grading/{name}.py": [_S65, *_HELPER_TESTS, *_RULE_TESTS] for name in ("text", "case", "rivals")},
    # the word forms and the contrast/enumeration helpers: the fast tests that reach them (10 s, against 35 s for the
    # rule tests quiet and 2-4 minutes at a load of 10), then the rule tests as a backstop
    **{f"judgeagent/grading/{name}.py": _FORMS_TESTS + _RULE_TESTS for name in ("forms", "phrases")},
    "judgeagent/grading/forms.py": [_S60, _S62 + "a_currency_sign_with_letters_is_no_content_word", *_FORMS_TESTS,
                                    *_RULE_TESTS],  # its word lists word by word first
    # part B: the learned step (the tests written against its survivors, its own tests, then the runs that grade with
    # it), the hard negative probes and the judge role (the tests written against their survivors first, then the
    # calibration and judge tests that covered them before)
    "judgeagent/grading/equivalence.py": [
        _S65, _S60, "tests/test_mutants_killed_s59.py", _S63 + "the_learned_steps_fit_is_sklearns_l2_logistic_regression_at_c_1", _S62 + "a_calibration_without_enough_wrong_answers_accepts_nothing"] + [_B + name for name in (
        "every_feature_of_one_reply_by_hand", "the_gold_as_a_phrase_at_either_end_of_the_reply_or_inside_a_longer_word",
        "each_hedge_word_is_a_hedge_in_the_first_sentence_only",
        "calibration_notes_word_for_word_and_the_fifty_wrong_answers_it_needs",
        "the_fit_is_the_penalised_optimum_in_its_own_standardisation",
        "a_weights_file_keeps_its_extra_fields_and_bad_ones_are_named_word_for_word", "the_gate_says_why_word_for_word",
        "a_run_records_the_weights_bytes_and_off_is_a_name_not_a_file", "the_steps_reasons_word_for_word")] + [
        "tests/test_equivalence.py", "tests/test_learned_run.py", _S61],
    "judgeagent/grading/hard_negatives.py": [_B + name for name in (
        "the_asked_kind_is_read_from_the_opening_words", "same_kind_draws_only_golds_of_the_asked_kind_unlike_this_one",
        "partial_drops_exactly_one_listed_item", "partial_gives_a_persons_first_name_only_for_a_two_to_four_word_name",
        "the_hard_false_positive_rate_counts_each_hard_kind_and_no_other")] + [
        _W3 + "a_capitalised_question_word_or_pronoun_is_no_part_of_a_subject",
        _W3 + "a_two_word_question_asks_for_its_second_word",
        _W3 + "a_name_whose_first_word_is_not_capitalised_gives_no_first_name",
        "tests/test_answers.py::test_same_subject_probes_are_another_questions_answer_about_the_same_name",
        "tests/test_answers.py::test_a_name_many_questions_share_is_a_setting_not_a_subject",
        "tests/test_answers.py::test_hard_negatives_fail_a_careless_judge_that_other_golds_let_through",
        _TEXT + "the_default_checker_probes_with_other_golds_and_hard_negatives_only_when_asked", *_CALIBRATION_TESTS],
    "judgeagent/grading/judge.py": [_S65,
        "tests/test_mutants_killed_s59.py",
        _S63 + "a_reason_of_three_instruction_words_that_matches_no_instruction_is_the_judges_own"] + [_B + name for name in (
        "each_gold_gets_its_question_type_and_the_rule_of_that_type_in_the_prompt", "the_judges_messages_word_for_word",
        "a_judges_verdict_carries_its_best_f1_and_a_reason_of_three_words_or_more",
        "a_reason_is_copied_when_every_part_is_an_instruction_or_its_words")] + [
        "tests/test_answers.py", "tests/test_answer_rules.py::test_question_type_from_the_gold", _S61],
    # the interviewer's report: the report built by hand from rows, then the scripted runs whose report.md is read
    "judgeagent/protocols/interviewer/report.py": [
        _S62 + "the_unclarified_items_answered_without_the_information_are_those_with_a_verdict",
        *(f"{_B}the_interview_{name}" for name in (
            "reports_numbers_by_hand", "report_word_for_word", "report_of_nothing_and_each_scoring_described")),
        *(f"tests/test_interviewer.py::test_{name}" for name in (
            "the_authors_test_cases_score_as_their_metrics", "table_4_score_columns_come_out_of_our_scoring",
            "changed_quantities_accepted_rejected_and_not_allowed",
            "follow_ups_ask_for_a_rationale_after_a_solve_and_a_clarification_after_a_failure",
            "rotated_follow_ups_stay_an_option_and_keep_the_old_run_identity",
            "unclarifying_removes_information_that_the_interviewer_gives_back_when_asked",
            "long_answers_are_scored_by_atomic_facts_with_the_authors_recall",
            "a_follow_up_is_asked_again_up_to_m_times_until_answered")), "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference", "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote"],
    # Teach2Eval's and DynaEval's reports: the reports built by hand, then the scripted runs whose report.md is read
    # (the embedded-model tests left out: minutes, and nothing of these modules' more)
    "judgeagent/protocols/teach2eval/report.py": [
        _S62 + "a_summary_without_its_scoring_was_made_with_the_geometric_one",
        *(f"{_B}the_teach2eval_{name}" for name in (
            "reports_counts_by_hand", "report_word_for_word",
            "report_of_an_older_summary_a_told_answer_and_a_conversion")),
        *(f"tests/test_teach2eval.py::test_{name}" for name in (
            "a_lesson_end_to_end_gives_the_hand_computed_abilities",
            "the_leakage_guard_redacts_and_counts_a_teacher_who_states_the_answer",
            "the_authors_can_tell_answer_setting_lets_the_answer_through_and_counts_it")), "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference", "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote"],
    "judgeagent/protocols/dynaeval/report.py": [
        _S65,
        *(_B + name for name in (
            "the_dynaeval_report_of_an_asymmetric_run_word_for_word",
            "the_dynaeval_report_of_a_symmetric_run_word_for_word",
            "dynaeval_scoring_pairs_positions_and_measures_by_hand")),
        *(f"tests/test_dynaeval.py::test_{name}" for name in (
            "a_run_stops_when_the_scores_converge", "fixed_repetitions_play_the_papers_count_whatever_the_scores",
            "idiom_pairwise_plays_every_ordered_pair_from_each_start_idiom",
            "public_goods_moves_are_read_by_the_referee_or_the_rule", "roles_swap_and_the_reviewer_fixes_the_code",
            "translation_paper_scoring_rates_each_role_and_gives_bleu_beside_chrf",
            "mbpp_code_game_as_in_the_paper_referee_scores_and_pass_at_1_per_round")), "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference", "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote"],
    # the fast tests first: with -x a mutant they kill never reaches the slow ones, which only survivors run
    "judgeagent/runs.py": [_S65, "tests/test_mutants_killed_s59.py", _S61, *(_S63 + name for name in (
        "a_reproduce_runs_summary_is_written_again_by_its_own_command",
        "a_synthesis_folder_that_is_a_file_names_synthesizes_own_flag",
        "a_resume_with_other_learned_step_weights_names_both", "a_run_named_by_its_protocol_takes_its_article")),
                           *(_S64 + name for name in ("a_runs_rows_keep_their_text_as_written",
                             "a_work_folder_that_cannot_be_made_names_itself_and_synthesizes_flag")),
                           "tests/test_mutants_killed.py", "tests/test_runs.py"],
    "judgeagent/protocols/runner.py": [
        _S65, "tests/test_mutants_killed.py",
        "tests/test_learned_run.py::test_weights_whose_calibration_failed_leave_the_step_off_and_say_so_once", "tests/test_protocols.py::test_resume_after_a_kill_mid_dialogue_repeats_no_call",
        "tests/test_protocols.py::test_interviewer_through_the_cli_on_loopback_servers",  # a registry of the config's
        "tests/test_learned_run.py::test_a_run_begun_without_the_step_resumes_and_grades_without_it",
        "tests/test_recipes.py::test_a_reproduce_run_records_its_kind_and_evaluate_resume_refuses_it_by_name"],
    "judgeagent/protocols/base.py": [
        *(_W3 + name for name in (
            "a_progress_event_is_frozen_and_counts_nothing_unless_told", "the_learned_step_an_episode_reads_is_the_requests",
            "a_role_takes_the_judge_flag_and_a_missing_judge_role_names_that_flag",
            "a_run_folder_is_named_after_the_first_model_and_a_protocol_has_no_headline_unless_it_says",
            "a_runs_identity_names_its_graph_and_a_run_caches_unless_told")),
        "tests/test_mutants_killed.py",
        "tests/test_protocols.py::test_roles_default_to_the_shared_flags_and_a_many_role_opens_each_model",
        "tests/test_protocols.py::test_resume_after_a_kill_mid_dialogue_repeats_no_call"],
    "judgeagent/view/inspect_log.py": [
        _S65,
        *(_S63 + name for name in ("an_inspect_samples_clock_comes_from_its_timed_calls_only",
                                   "a_call_that_reports_no_output_tokens_counts_none")),
        _S62 + "an_inspect_model_event_keeps_each_generate_setting_of_the_call_and_no_other",
        "tests/test_mutants_killed.py",
        "tests/test_view.py::test_inspect_export_of_each_protocol_is_read_back_by_inspect_ai", "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference"],
    # the shared report.md / report.html and `judgeagent compare` of every protocol but JudgeAgent: the report and
    # compare commands on scripted runs of each (28 s quiet)
    "judgeagent/protocols/reports.py": ["tests/test_run_reports.py", "tests/test_report_reference.py::test_a_scripted_run_reads_as_the_reference"],
    # the typed check of records.jsonl and episodes.jsonl rows: the regressions the run-folder fuzzing found, each
    # a row of the wrong kind named FILE:LINE: field (13-15 s; the fuzz tests themselves are slow)
    "judgeagent/protocols/rows.py": [_S61, _S62 + "a_record_whose_turn_is_a_numeral_in_a_string_is_refused"] + [f"tests/test_fuzz_runs.py::test_{name}" for name in (
        "a_record_with_a_field_of_the_wrong_kind_is_file_line_field", "a_record_score_that_is_no_object_is_file_line_field",
        "an_episode_row_with_a_field_of_the_wrong_kind_is_file_line_field",
        "a_judgeagent_record_of_the_wrong_kind_and_an_empty_question",
        "a_dynaeval_game_row_of_the_wrong_kind_is_file_line_field")],
    # JudgeAgent's run summary: the summary and its printed form by hand, then the records' read-back test
    "judgeagent/protocols/judgeagent/summary.py": [
        _W3 + "a_runs_summary_by_hand", _W3 + "a_runs_summary_as_printed_word_for_word", "tests/test_records.py"],
    # KIEval's evaluator agreement: the bounds by hand, then the comparison with sklearn's kappa
    "judgeagent/protocols/kieval/agreement.py": [
        _W3 + "agreement_is_defined_from_two_pairs_and_undefined_when_either_rater_is_constant",
        "tests/test_rubric.py::test_agreement_matches_independent_implementations",
        "tests/test_rubric.py::test_agreement_is_undefined_not_zero_for_constant_scores"],
    # DynaEval's stability: its cells, waves and running means by hand, then the stopping rule on known noise
    "judgeagent/protocols/dynaeval/stability.py": [_W3 + name for name in (
        "the_cells_a_run_is_judged_on_and_their_running_means_by_hand", "the_next_wave_at_each_bound",
        "seats_follow_the_seed_and_the_repetition_apart_and_every_cast_of_an_asymmetric_task")] + [
        "tests/test_dynaeval.py::test_seats_are_shuffled_per_repetition_with_the_seed",
        "tests/test_dynaeval.py::test_the_stopping_rule_on_known_noise"],
    # JudgeAgent's report package (#47: never run before stop 60): the report's parts by hand first, then the runs whose
    # report.md and report.html are read (on the slice graph: set JUDGEAGENT_TEST_GRAPH_CACHE so it is built once)
    "judgeagent/protocols/judgeagent/report/judging.py": [
        _S65,
        _S64 + "the_share_of_verdicts_that_rest_on_a_shaky_decision_is_a_percentage",
        "tests/test_hard_bound_report.py", "tests/test_mutants_killed_s60_report.py", "tests/test_learned_run.py::test_the_report_shows_the_learned_row_and_the_weights",
        "tests/test_judging_e2e.py::test_the_demo_run_rests_only_on_a_calibrated_judge", *_REPORT_RUNS],
    "judgeagent/protocols/judgeagent/report/gaps.py": [
        "tests/test_specificity.py::test_demo_seeds_cloze_golds_and_gap_rows_are_specific", *_REPORT_RUNS,
        _S63 + "a_graph_written_before_specificity_was_stored_gives_the_report_the_same_names"],
    "judgeagent/protocols/judgeagent/report/build.py": [_S65, *_REPORT_RUNS],
    "judgeagent/protocols/judgeagent/report/checked.py": _REPORT_RUNS,
    # `judgeagent paths-check`'s numbers (stop 69): the tests written against its survivors (the printed figures
    # word for word, the ratio's and misses' edges), the ratio and spread helpers by hand, the refusals, then the
    # demo-graph runs (set JUDGEAGENT_TEST_GRAPH_CACHE: relevance.py is outside the graph build's imports, so a
    # mutant loads the cached graph); the HotpotQA spread test and the bench-only tests left out for time
    "judgeagent/graph/relevance.py": [_S69 + name for name in (
        "paths_checks_printed_figures_word_for_word", "a_ratio_without_resamples_has_a_value_and_no_interval",
        "by_position_reads_only_the_paths_long_enough", "a_checks_figures_cannot_be_changed_once_made",
        "a_question_file_names_every_field_it_has_and_reads_json_too",
        "one_seeds_misses_show_the_dense_ranking_of_that_seed")] + [f"tests/test_paths_check.py::test_{name}" for name in (
        "ratio_weighs_paths_and_resamples_whole_questions_the_same_for_both_ways",
        "dense_at_spread_takes_the_ranking_s_first_chunks_over_as_many_documents",
        "paths_check_refuses_questions_it_cannot_measure_in_one_line",
        "paths_the_ranking_cannot_match_leave_the_spread_line_weighted_by_path",
        "paths_check_prints_bench_paths_figures_with_intervals")],
    # usage and the response cache (stop 69): the tests written against their survivors, the budget's journal
    # replay, then the model tests on the loopback server (11 s quiet)
    "judgeagent/models/usage.py": [
        "tests/test_budget.py::test_a_ledger_goes_on_from_an_earlier_invocations_rows_and_its_budget_is_the_whole_jobs",
        *(_S69 + name for name in (
        "the_usage_table_word_for_word", "the_budget_stops_a_call_once_spending_reaches_it_and_says_so_word_for_word",
        "a_roles_seconds_are_the_wall_time_inside_its_calls_added_up",
        "a_role_whose_model_names_no_served_model_has_no_served_field_and_a_raised_call_is_a_failure",
        "a_roles_line_counts_paid_calls_hits_failures_tokens_dollars_and_the_served_name_once")),
        "tests/test_budget.py::test_a_budget_stops_calls_and_a_journal_replays_for_free", "tests/test_models.py"],
    "judgeagent/models/cache.py": [*(_S69 + name for name in (
        "the_default_cache_folder_is_the_variable_then_xdg_then_home",
        "switching_to_wal_waits_out_a_lock_for_thirty_seconds_with_doubling_sleeps",
        "each_kind_of_model_identity_has_its_one_line_source",
        "a_cache_key_does_not_depend_on_the_order_of_an_identitys_or_settings_keys",
        "a_folder_that_is_not_there_is_not_nearly_full",
        "a_cache_that_cannot_be_used_says_why_and_what_to_do_word_for_word",
        "a_cache_used_from_another_thread_is_closed_from_this_one",
        "a_caches_sources_count_answers_and_bytes_and_removal_by_source_or_age",
        "a_journaled_calls_time_is_its_own_in_seconds")), "tests/test_function_model.py", "tests/test_models.py"],
    # retries of model calls (stop 69, second part): the model tests on the loopback server (13 s quiet): the
    # retried faults, Retry-After, the fatal statuses, the scrubbed key
    "judgeagent/models/retry.py": [*(_S69B + name for name in (
        "a_transient_status_is_retried_until_the_endpoint_answers",
        "a_status_that_cannot_succeed_is_asked_once_and_a_fatal_one_names_no_attempts",
        "a_reply_without_choices_says_so_word_for_word", "a_connection_refused_is_retried_as_many_times_as_allowed",
        "a_reply_the_client_cannot_read_is_not_retried",
        "the_wait_is_the_servers_retry_after_in_seconds_milliseconds_or_a_date_capped_at_twice_the_cap",
        "without_retry_after_the_wait_doubles_from_half_a_second_up_to_the_cap_with_jitter",
        "a_key_that_says_no_key_is_needed_is_not_hidden_in_a_message",
        "a_retry_after_that_is_neither_seconds_nor_a_date_is_a_wait_of_our_own")), "tests/test_models.py"],
    # the model client (stop 70): the retry tests and the model tests on the loopback server, the cache's concurrency
    # tests left out (they exercise cache.py, 8 s); the embedded model's tests left out (minutes)
    "judgeagent/models/client.py": [*(_S70 + "client_" + name for name in (
        "auto_falls_back_to_json_object_once_and_says_so_word_for_word",
        "every_request_refused_before_the_fallback_was_learned_falls_back_too",
        "a_refusal_that_does_not_name_the_response_format_is_no_fallback",
        "a_plain_request_refused_naming_the_response_format_is_no_fallback",
        "a_set_json_schema_dialect_is_never_switched", "the_repair_turn_shows_the_model_its_own_reply_as_the_assistants",
        "counts_each_request_from_zero", "a_timeout_says_how_long_it_waited_word_for_word",
        "a_reply_in_a_json_code_fence_is_read_without_a_repair", "only_a_reply_that_opens_with_a_fence_is_read_as_one",
        "the_served_model_is_the_endpoints_own_name_kept_through_a_reply_without_one",
        "asks_the_chat_completions_route_and_names_its_endpoint_in_the_cache",
        "an_invalid_reply_names_the_field_or_the_whole_reply")), *(_S69B + name for name in (
        "a_transient_status_is_retried_until_the_endpoint_answers",
        "a_status_that_cannot_succeed_is_asked_once_and_a_fatal_one_names_no_attempts",
        "a_reply_without_choices_says_so_word_for_word", "a_connection_refused_is_retried_as_many_times_as_allowed",
        "a_reply_the_client_cannot_read_is_not_retried", "a_key_that_says_no_key_is_needed_is_not_hidden_in_a_message")),
        *(f"tests/test_models.py::test_{name}" for name in (
        "plain_and_structured_completions_count_usage", "json_object_dialect_for_llama_cpp",
        "invalid_output_gets_one_repair_then_a_recorded_failure",
        "faults_end_in_success_or_clean_failure_and_failures_are_not_cached",
        "retry_after_is_honoured_and_retries_are_capped", "a_reply_without_choices_is_retried_and_never_cached",
        "errors_that_cannot_succeed_fail_at_once_without_the_key", "cache_rerun_sends_nothing_and_keys_on_every_setting",
        "concurrency_is_bounded_per_model", "unreachable_endpoint_is_a_clean_error",
        "no_key_in_cache_files_logs_or_descriptions", "two_weights_files_are_two_cache_identities_and_the_port_is_none",
        "cached_calls_behind_a_journal_are_counted_as_cached_and_cost_nothing"))],
    # atomic writes, stale temporaries, the one-line read and write errors, folder kinds (stop 70): the tests written
    # against its survivors, those of the files it reads and writes, then the folder kinds (a run and the demo graph)
    "judgeagent/files.py": [*(_S70 + "files_" + name for name in (
        "a_file_that_cannot_be_read_is_named_word_for_word",
        "an_atomic_write_into_a_missing_folder_says_what_to_do_word_for_word",
        "an_out_that_cannot_be_read_to_tell_whose_it_is_is_refused_word_for_word",
        "a_manifest_of_another_format_version_is_one_line_word_for_word",
        "a_dead_writers_staging_folder_that_cannot_all_be_removed_is_no_error",
        "a_temporary_names_its_host_and_another_hosts_is_left_to_it",
        "a_host_name_with_a_slash_or_an_at_still_names_its_temporaries",
        "a_json_line_holding_a_unicode_line_separator_is_one_record",
        "a_numbered_step_past_the_end_of_a_list_is_missing_not_its_first_element",
        "a_temporary_of_another_users_live_process_is_left_to_it", "only_this_commands_own_earlier_output_is_replaced",
        "a_synthesis_work_folder_or_a_boolean_manifest_is_named_word_for_word",
        "a_key_with_dots_of_its_own_wins_over_the_path_it_spells",
        "a_folder_named_as_the_file_to_write_and_a_json_files_text")),
        "tests/test_benchmark.py::test_nested_fields_are_mapped_by_dotted_paths", *(f"tests/test_runs.py::test_{name}" for name in (
        "stale_temporaries_go_without_a_traceback_whatever_their_names",
        "an_atomic_write_where_the_filesystem_cannot_sync_still_writes",
        "atomic_writes_sync_the_file_before_renaming_it",
        "a_run_killed_while_writing_its_first_manifest_starts_with_the_same_command")),
        "tests/test_malformed_fields.py", "tests/test_benchmark.py::test_bad_input_is_one_clear_line",
        "tests/test_corpus.py::test_bad_input_names_the_problem",
        *(f"tests/test_cli.py::test_{name}" for name in (
        "unwritable_output_is_refused_before_any_work", "make_mcq_refuses_an_unwritable_out_before_any_work",
        "a_manifest_that_is_no_json_object_is_one_line")), "tests/test_folder_kinds.py"],
    # entity specificity (stop 69, second part): word rarity, the demo graph's stored values and what they keep out
    # of seeds, cloze golds and gap rows, the section labels (11-16 s: specificity.py is among the graph build's
    # imports, so each mutant builds the demo graph again)
    "judgeagent/graph/specificity.py": [*(_S69B + name for name in (
        "generic_is_below_one_half", "a_share_of_capitalised_mentions_counts_each_entitys_rows",
        "a_names_rarity_is_that_of_its_rarest_word_on_the_zipf_scale_from_three_to_six",
        "specificity_of_hand_built_tables", "without_wordfreq_specificity_says_what_to_install")),
        "tests/test_specificity.py"],
    # the walks (stop 69, second part): the tests written against its survivors (on the demo graph), the hand-built
    # pools and steps, then those on the HotpotQA-small graph (walk.py is among the graph build's imports: each
    # mutant builds the graphs again, 5-10 s each)
    "judgeagent/graph/walk.py": [*(_S69B + name for name in (
        "a_pool_spans_five_sixths_of_a_document_a_hop", "a_walks_next_steps_by_hand_with_the_constants_written_out")),
        *(f"tests/test_paths.py::test_{name}" for name in (
        "the_best_distinct_steps_are_those_of_a_full_sort", "a_pool_spans_documents")),
        *(f"tests/test_path_draw.py::test_{name}" for name in (
            "a_questions_seeds_take_different_walks_of_a_pool", "the_draw_favours_a_pools_best_walks",
            "the_weighted_draw_still_spans_the_documents_the_floor_asks")),
        *(f"tests/test_paths.py::test_{name}" for name in (
            "each_entitys_best_chunk_is_that_of_its_definition", "a_pools_next_steps_are_those_of_their_definition[hotpotqa-hotpot_graph]",
            "a_pool_leaves_out_walks_far_below_its_best", "hops_follow_links_and_explanation_matches_the_path"))],
    # the path sampler (stop 70): the hand-built pools' draws, the two- and three-document graphs' seeds, links and
    # stand-ins, the demo graph's term seeds, seed specificity and dense rankings, then the HotpotQA-small graph's
    # homes, hops and draws; no MultiHop-RAG graph (sample.py is among the graph build's imports: each mutant builds
    # the graphs again, 45 s in all)
    "judgeagent/graph/sample.py": [*(_S70_SAMPLE + name for name in (
        "a_seed_draw_by_hand_and_at_the_top_of_the_unit_interval", "the_samplers_memories_keep_the_256_last_used")),
        *(f"tests/test_path_draw.py::test_{name}" for name in (
            "a_questions_seeds_take_different_walks_of_a_pool", "the_draw_favours_a_pools_best_walks",
            "the_weighted_draw_still_spans_the_documents_the_floor_asks")),
        *(f"tests/test_sample.py::test_{name}" for name in (
            "stops_early_when_no_neighbour_is_left", "a_question_links_the_things_it_names",
            "a_far_seed_can_reach_the_questions_best_chunk", "a_near_seed_can_reach_the_questions_best_chunk_too",
            "a_stand_in_is_chosen_by_its_name_before_its_fit")),
        "tests/test_paths.py::test_only_an_unambiguous_name_has_a_home", "tests/test_terms.py",
        *(_S70_SAMPLE + name for name in (
            "drawn_from_lists_the_walks_sample_takes_with_its_defaults", "drawn_from_takes_one_hop_and_refuses_none",
            "seed_options_give_each_figure_to_four_places_and_the_odds_by_hand",
            "dense_takes_each_questions_best_chunks_in_turns_by_hand",
            "a_chunk_is_walked_towards_for_at_most_two_of_the_questions_mentions",
            "a_sampler_refuses_an_encoder_of_another_width_word_for_word")),
        *(_S69B + name for name in (
            "a_pool_spans_five_sixths_of_a_document_a_hop", "a_walks_next_steps_by_hand_with_the_constants_written_out")),
        "tests/test_specificity.py::test_demo_seeds_cloze_golds_and_gap_rows_are_specific",
        _S69 + "one_seeds_misses_show_the_dense_ranking_of_that_seed",
        "tests/test_paths_check.py::test_paths_check_prints_bench_paths_figures_with_intervals",
        *(f"tests/test_paths.py::test_{name}" for name in (
            "a_question_naming_a_documents_title_seeds_from_it", "hops_follow_links_and_explanation_matches_the_path")),
        *(f"tests/test_path_draw.py::test_{name}" for name in (
            "drawn_paths_take_more_from_supporting_documents_than_their_pools_average",
            "the_odds_a_path_is_drawn_with_are_those_its_draws_follow")),
        *(f"tests/test_paths.py::test_{name}" for name in (
            "paths_reach_supporting_documents_across_documents[hotpotqa-hotpot_graph]",
            "a_pool_leaves_out_walks_far_below_its_best")),
        *(f"tests/test_reader_process.py::test_{name}" for name in (
            "auto_starts_the_reader_after_READER_AFTER_questions", "the_reader_process_reads_the_same_paths"))],
    # model specs (stop 71): the names users type (provider:model, local, a toml's models, --base-url), the key and
    # credential checks, the -M settings, on the loopback server (the cache's concurrency tests left out, 8 s)
    "judgeagent/models/spec.py": [*(_S71 + "spec_" + name for name in (
        "each_query_parameter_named_as_a_credential_is_refused", "each_model_argument_sets_its_field",
        "the_embedded_models_spec_word_for_word", "each_providers_model_word_for_word",
        "a_spec_its_generation_and_prices_cannot_be_changed_in_place", "the_one_line_errors_word_for_word",
        "the_embedded_model_without_its_weights_says_what_to_install",
        "each_generation_setting_is_kept_inside_its_bounds", "a_name_that_begins_with_local_is_not_the_embedded_model",
        "the_config_variable_names_the_file_read")), *(f"tests/test_models.py::test_{name}" for name in (
        "the_names_users_type_resolve_as_their_tools_do", "registry_files_and_names", "local_model_file_must_exist",
        "a_key_in_a_base_url_is_refused_before_it_reaches_a_cache_or_a_message",
        "a_key_in_a_fragment_after_a_semicolon_or_under_a_longer_name_is_refused",
        "a_base_url_query_without_credentials_is_kept", "each_way_of_naming_a_key_in_a_query_is_refused",
        "a_key_pasted_as_the_variable_name_is_refused_unechoed", "a_variable_name_in_either_case_is_kept",
        "a_key_in_any_shape_is_refused_as_a_variable_name", "roles_that_default_to_the_target_use_its_base_url",
        "ping_an_unregistered_name_at_a_base_url", "no_key_in_cache_files_logs_or_descriptions",
        "errors_that_cannot_succeed_fail_at_once_without_the_key",
        "two_weights_files_are_two_cache_identities_and_the_port_is_none")), "tests/test_role_settings.py"],
    # chunking (stop 71): the tests written against its survivors, then whole sentences, offsets, ids, sizes, spaCy's
    # length limit (5 s)
    "judgeagent/chunking.py": [*(_S71 + "chunks_" + name for name in (
        "end_at_a_paragraph_once_half_full_and_keep_one_word_sentences_but_no_wordless_ones",
        "a_first_sentence_longer_than_a_chunk_is_one_chunk", "a_window_with_one_sentence_end_is_cut_after_it",
        "fill_to_max_words_after_a_break_and_only_a_paragraphs_first_sentence_opens_it",
        "a_window_whose_one_space_is_its_second_character_is_cut_there",
        "a_run_on_paragraph_is_cut_only_past_a_window_of_100000_characters", "a_chunk_cannot_be_changed_in_place")),
        "tests/test_chunking.py"],
    # the native formats (stop 71): each format's items field by field and its malformed fields word for word, the
    # fuzzed records and CSV rows (seconds each; the graph and run-folder fuzzers left out), then docs/reproduce.md's
    # table of formats (each format's title and PATH)
    "judgeagent/benchmarks/formats.py": [
        _S71B, "tests/test_native_formats.py", "tests/test_malformed_fields.py",
        "tests/test_fuzz_loaders.py::test_a_damaged_record_loads_or_is_one_line",
        "tests/test_fuzz_loaders.py::test_damaged_csv_rows_load_or_are_one_line",
        "tests/test_recipes.py::test_docs_reproduce_is_generated_from_the_catalogue"],
    # one record to an item (stop 71): the generic loader's files, field maps and bad input, the native formats that
    # read through it (Hugging Face records), the malformed fields
    "judgeagent/benchmarks/item.py": [
        _S71B, "tests/test_benchmark.py", "tests/test_malformed_fields.py", "tests/test_native_formats.py",
        "tests/test_teach2eval_fidelity.py"],
    # JudgeAgent's validation stage (stop 71, never mutated before): the tests written against its survivors, then
    # the scripted runs it validates on the slice graph (set JUDGEAGENT_TEST_GRAPH_CACHE: validate.py is outside the
    # graph build's imports), the ours, authors and every-round ones (50 s quiet)
    "judgeagent/protocols/judgeagent/validate.py": [
        *(_S71V + name for name in (
            "a_validations_summary_by_hand", "a_validation_as_printed_word_for_word",
            "a_journaled_feedback_that_no_longer_reads_as_feedback_is_a_batch_without_feedback",
            "validate_inside_a_running_loop_says_which_call_to_await_and_that_call_works",
            "a_validated_runs_rows_name_the_call_after_and_its_intervals_are_2000_resamples",
            "every_round_of_a_run_without_extension_is_its_one_round")),
        "tests/test_validate.py",
        "tests/test_judgeagent_together.py::test_extension_rounds_and_each_rounds_validation_ask_in_the_json_form",
        *(f"tests/test_judgeagent_authors_validation.py::test_{name}" for name in (
            "authors_setting_skips_feedback_on_a_batch_all_right_and_counts_batches_without_feedback",
            "ours_asks_feedback_on_every_batch_and_leaves_failed_ones_out")),
        "tests/test_judgeagent_fidelity.py::test_validation_after_every_round_as_the_authors_eval_all_rounds"],
    # JudgeAgent's typed records (stop 71): the records' round trips and format-1 defaults, the scripted run whose
    # files are pinned byte for byte, then the validation runs that read records back
    "judgeagent/protocols/judgeagent/records.py": [
        *(_S71V + name for name in (
            "the_typed_records_cannot_be_changed_and_a_verdict_can_be_counted_in_a_set",
            "a_records_options_and_cached_tokens_come_back_and_empty_options_are_none",
            "a_batch_rows_rounds_run_and_skipped_are_counted_apart",
            "a_row_without_batch_or_round_reads_as_batch_0_round_0",
            "a_records_batch_reply_comes_back_and_is_written_last")),
        "tests/test_records.py",
        "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote[judgeagent]",
        "tests/test_validate.py"],
    # reading a corpus (stop 71, never mutated before): each format, ids, titles and bad input under tmp_path (3 s)
    "judgeagent/corpus.py": [*(_S71_E + "corpus_" + name for name in (
        "a_parquet_field_may_be_a_path_into_a_struct_or_a_column_named_with_a_dot",
        "an_empty_corpus_and_an_unreadable_parquet_file_word_for_word", "a_document_cannot_be_changed_in_place",
        "an_unsupported_corpus_file_word_for_word",
        "a_markdown_title_is_its_first_lines_heading_else_its_file_name",
        "a_meta_that_is_not_an_object_is_kept_under_value")), "tests/test_corpus.py"],
    # the encoder (stop 71, never mutated before): the tests written against its survivors, the one-batch path's bytes
    # against sentence-transformers' own, the static model from the cache, the CLI's one-line errors for a model that
    # is not there, then the static model distilled into an empty cache (the graph tests left out: embedding.py is in
    # the graph cache's key, so each mutant would build its graphs anew; 30 s quiet without the last test, 90 s with)
    "judgeagent/embedding.py": [*(_S71_E + "embedding_" + name for name in (
        "the_static_model_is_kept_under_the_cache_variable_else_the_home_folder",
        "the_hub_is_reachable_when_its_endpoint_answers_unless_hf_hub_offline",
        "each_index_kind_is_built_and_recorded_ivfpq_from_256_vectors",
        "recall_at_10_asks_500_stored_vectors_unless_told", "auto_picks_the_index_by_size_and_ivfpq_has_n_over_39_lists",
        "the_hub_check_gives_up_after_3_seconds_on_an_endpoint_that_does_not_answer",
        "a_static_model_folder_given_by_its_path_loads_as_the_static_model",
        "a_static_model_that_does_not_normalise_still_gives_unit_vectors",
        "a_pq_m_that_does_not_divide_the_dimension_and_recall_over_every_vector",
        "a_model_without_a_normalize_module_still_gives_unit_vectors_to_long_lists")),
        "tests/test_encoder_batch.py",
        "tests/test_static_embedding.py::test_a_text_with_no_known_token_gets_a_zero_vector_not_nan",
        "tests/test_static_embedding.py::test_the_static_model_encodes_from_two_threads",
        "tests/test_cli.py::test_bad_input_one_line_error_no_graph[6]",
        "tests/test_cli.py::test_bad_input_one_line_error_no_graph[8]",
        # last, a minute: the only test that distils the static model into an empty cache (`_load_static`'s branch)
        "tests/test_static_embedding.py::test_static_model_loads_offline_and_embeds_normalised_vectors"],
    # JudgeAgent's online stage, one batch (stop 71, never mutated before): the scripted run pinned byte for byte, the
    # schema-echo feedback, the scripted runs on the slice graph (tiers, ablations, dense and random paths, resumes,
    # leaks, skipped rounds, irt; set JUDGEAGENT_TEST_GRAPH_CACHE: batch.py is outside the graph build's imports),
    # then setting=authors' batch calls, multiple-choice rounds and feedback (the 22 s skip test left out)
    "judgeagent/protocols/judgeagent/batch.py": [
        *(_S71_D + name for name in (
            "the_feedback_transcript_word_for_word", "the_reader_encodes_the_second_batch_the_worker_has_not_started",
            "the_authors_setting_with_dense_paths_takes_the_top_chunks",
            "a_later_cloze_round_avoids_the_question_an_earlier_round_asked",
            "a_cloze_rounds_draw_is_seeded_by_the_run_the_batch_and_the_round",
            "a_batchs_held_out_questions_are_the_share_of_its_questions_drawn_by_seed_and_batch",
            "a_round_takes_its_first_new_path_and_after_four_tries_a_repeat",
            "feedback_asked_again_that_repeats_the_schema_keeps_the_first_redacted",
            "a_round_whose_questions_all_fail_says_each_reason_once",
            "authors_rounds_keep_the_grading_tier_and_ours_take_the_latest",
            "the_reader_reads_the_rounds_first_seeds_ahead_but_not_for_the_authors_windows",
            "the_reader_helps_while_the_worker_is_far_behind_and_at_the_end")),
        "tests/test_layout_reference.py::test_a_scripted_run_writes_what_the_code_before_the_move_wrote[judgeagent]",
        "tests/test_protocols.py::test_feedback_whose_suggestions_repeat_the_schema_is_no_feedback",
        "tests/test_evaluate.py", *(f"tests/test_judgeagent_together.py::test_{name}" for name in (
            "extension_rounds_and_each_rounds_validation_ask_in_the_json_form",
            "quality_under_the_authors_setting_one_call_per_article", "a_batch_cut_short_resumes_without_asking_again")),
        "tests/test_judgeagent_authors_questions.py",
        "tests/test_judgeagent_authors_validation.py::test_ours_asks_feedback_on_every_batch_and_leaves_failed_ones_out"],
    # the easy tier's cloze questions (stop 71, never mutated before): the tests written against its survivors, the
    # splitter and the tiny two-document graph, then the demo graph's paths and counts, the news slice's paths last
    # (set JUDGEAGENT_TEST_GRAPH_CACHE: cloze.py is outside the graph build's imports; 20 s with the graphs cached)
    "judgeagent/protocols/judgeagent/cloze.py": [*(_S71_F + name for name in (
        "a_question_or_exclamation_mark_after_one_letter_ends_the_sentence",
        "a_sentence_may_open_with_a_quote_or_a_bracket_and_a_quoted_abbreviation_does_not_end_one",
        "a_last_sentence_loses_its_trailing_space_and_keeps_a_one_letter_word",
        "a_whole_statement_opens_with_a_capital_or_digit_and_ends_with_a_full_stop_or_exclamation_mark",
        "any_one_clash_puts_a_question_after_those_without_one", "a_clash_is_remembered_through_later_picks",
        "a_pronoun_after_an_opening_conjunction_still_points_back",
        "answers_are_tiered_names_then_phrases_then_single_words_then_short_ones",
        "a_context_sentence_of_max_words_is_shown_and_one_word_more_is_not",
        "a_mention_that_opens_the_chunk_can_be_blanked", "an_answer_gives_itself_away_only_as_whole_words",
        "a_second_blank_in_an_asked_sentence_comes_after_any_other_sentence",
        "a_mention_whose_offsets_miss_its_surface_or_whose_surface_is_padded_is_not_blanked", "no_seed_is_seed_0")),
        *(f"tests/test_cloze.py::test_{name}" for name in (
        "sentence_splitter_keeps_abbreviations_and_decimals", "pronoun_led_short_and_self_revealing_sentences_are_skipped",
        "nothing_to_blank_gives_an_empty_list", "count_is_respected", "no_entities_blanks_any_mention_of_the_chunks",
        "demo_paths_give_valid_questions", "same_seed_same_questions_other_seeds_vary",
        "avoid_skips_questions_already_asked", "many_news_paths_keep_every_promise"))],
}

EQUIVALENT: dict[str, str] = {
    # "module:line:col:what" (a key without its #n, which shifts as mutation points are added): "why it changes
    # nothing that can be observed", or the whole key with its #n where the key without it names other mutants too
    # (the pieces of one f-string share its column),
    "judgeagent/protocols/judgeagent/cloze.py:78:18:const:True->False": "`_Candidate` not frozen: nothing assigns to "
        "a candidate's fields or hashes one (they sit in lists), so only the unused hash and immutability go (stop 71)",
    "judgeagent/grading/forms.py:41:19:const:1->2": "`_load`'s lru_cache of 2, not 1: it takes no argument, so it "
        "holds one pipeline either way",
    "judgeagent/grading/forms.py:57:19:const:4096->4097": "`stems`' cache one entry larger: the same stems, "
        "recomputed less often",
    "judgeagent/grading/forms.py:72:60:const:1->2": "the doubled-consonant check's last `stem[-1]` as `stem[-2]`: "
        "the condition before it has just made them equal",
    "judgeagent/grading/phrases.py:28:48:const:str->empty": "`listed` removing an article rather than spacing it: "
        "the article stands between spaces, ',', '/', '&' or the text's ends, so no two words join; no reply of 2-5 "
        "pieces of Paris, Lyon, Rome, the, a, ',', '/', '&', and, or, ' ' (177,144) lists the gold differently",
    **{f"judgeagent/protocols/rows.py:{at}": "a default of a row model's field (`_Tokens`' input, output and "
       "cached, `QuestionModel`'s protocol, batch and round): `check_row` only validates a row and drops the model, "
       "and pydantic does not validate defaults, so no default is read"
       for at in ("85:17:const:0->1", "86:18:const:0->1", "87:19:const:False->True", "96:20:const:str->empty",
                  "97:17:const:0->1", "98:24:const:0->1")},
    "judgeagent/grading/name_rules.py:12:45:const:str->empty": "'the' left out of `_CONNECTORS`: `acronym` reads "
        "the gold's words through `fold`, whose SQuAD normalisation has already removed every article",
    "judgeagent/grading/phrase_rules.py:240:53:const:str->empty": "'than' left out of `_FILLER`: `two_candidates` "
        "returns None for any reply holding a CONTRAST word first, and 'than' is one; its other use (`theirs`) is "
        "only read against a reply's words, which then hold no 'than'",
    "judgeagent/grading/yes_no.py:121:51:const:str->empty": "'maybe' left out of `denied`'s {yes, no, maybe}: the "
        "set is joined with CONTRAST, which holds 'maybe' too",
    "judgeagent/grading/forms.py:29:91:const:str->empty": "`SPACE` left out of the function parts of speech: a "
        "whitespace token holds no letter or digit, so the `isalnum` check drops it either way",
    **{f"judgeagent/protocols/judgeagent/scoring.py:7:{col}:const:str->empty": "a name in `Tier`'s Literal[...], "
       "a type annotation only: nothing reads it at run time" for col in (15, 23, 33)},
    "judgeagent/protocols/dynaeval/sandbox.py:640:54:const:2->3": "`_why_ended` waiting 3 s, not 2, for a candidate "
        "that has ended by then (its request pipe closed with the harness): only a hang would show the difference",
    **{f"judgeagent/protocols/dynaeval/sandbox.py:651:{at}": "`code > 0` as `>= 0` or `> 1` in the signal message: "
       "the branch runs only for a code of _CPU_KILLED (-24, -9, 137, 152), never 0 or 1"
       for at in ("80:compare0:Gt->GtE", "87:const:0->1")},
    "judgeagent/metrics.py:56:12:const:0->1": "McNemar's early return for n == 0 moved to n == 1: both n give "
                                              "p = 1.0 by the formula too",
    "judgeagent/grading/choice.py:134:8:return:None": "`_standalone`'s `return False` as None: its two callers "
                                                     "read it as a truth value, and None is false too",
    "judgeagent/grading/choice.py:141:8:return:None": "`_standalone`'s other `return False` as None: the same",
    "judgeagent/grading/answers.py:56:82:op:And->Or": "the options' texts as `others` with the gold option's own "
        "text kept when another letter repeats it: every rule that reads `others` skips a rival equal to a gold "
        "(`other in refs`, `o not in own`); checked with options A and B both 'Paris' and five free-text replies",
    "judgeagent/grading/numeric.py:219:30:const:str->empty": "`without_days` putting a day's month back without "
        "one of the spaces around it: the character before a day is never a word character (the pattern opens with "
        "\\b before a digit or a month) and the one after is the month or a non-word character, so the words stay "
        "apart; its only readers are `numbers` (stated_numbers, phrase_rules), which read the same numbers: checked "
        "on 540 date strings (days before and after months, with '1.', ',1969', '.5', number words around them)",
    "judgeagent/grading/free_text.py:55:46:const:str->empty": "'unknown' dropped from the golds that refuse: "
        "`is_refusal('unknown')` is true, so the gold refuses either way ('none' is not a refusal: that one counts)",
    "judgeagent/grading/free_text.py:90:8:return:None": "`_head`'s `return \"\"` for a listing gold as None: its "
        "one caller reads it as a truth value first (`_head(g) and ...`), and None is false too",
    "judgeagent/grading/hard_negatives.py:31:60:compare0:Gt->GtE": "`asked_kind` joining the first two (three "
        "after 'in') words of a one-word question too: the join of one word is that word, what it returns anyway",
    "judgeagent/protocols/dynaeval/stability.py:54:7:compare0:GtE->Gt": "`next_wave` stopping at `done > max_runs` "
        "rather than `>=`: at done == max_runs the last branch returns range(done, min(done + wave, max_runs)), "
        "empty too (an empty range equals any other)",
    "judgeagent/protocols/kieval/agreement.py:62:40:const:1->2": "`cohen_kappa` counting each pair as 2, not 1: "
        "the table is divided by its sum on the next line, so its proportions are the same",
    "judgeagent/protocols/kieval/agreement.py:67:23:op:Div->Mult": "the quadratic weights scaled by max^2 rather "
        "than 1/max: kappa is 1 - sum(w * observed) / sum(w * expected), so any common scale of the weights cancels",
    "judgeagent/grading/mcq.py:94:75:const:0->1": "`np.zeros(0)` as `np.zeros(1)` for the similarities of an empty "
        "pool: nothing is ranked then, so no similarity is read",
    "judgeagent/grading/calibration.py:147:4:return:None": "`_ambiguous`'s `return False` as None: its one caller "
        "reads it with `not`, and None is false too",
    "judgeagent/grading/calibration.py:203:14:op:Add->Sub": "`_changed_number` moving the number by -(+-k) for "
        "+-k: the sign is drawn from [-1, 1] with equal odds, so the changed numbers have the same distribution "
        "(and the same guard against a negative); only which of the two a seed draws differs",
    "judgeagent/grading/case.py:47:20:const:False->True": "`Case.options` defaulting to True: its default is never "
        "used, since the one place that builds a Case (`check_free_text`) passes `options` every time",
    **{f"judgeagent/grading/case.py:{at}:const:1->2": "`maxsplit=2` for 1 in `Reply.of`'s first-sentence split: only "
       "the first piece (`[0]`) is read, and it is the same either way" for at in ("29:70", "31:74")},
    "judgeagent/grading/rivals.py:48:19:const:16->17": "the rivals' `lru_cache` holding 17 sets of others, not 16: "
        "the index returned is the same, only how often it is rebuilt differs",
    "judgeagent/grading/equivalence.py:128:72:const:1->2": "the cosine's first sentence split with maxsplit=2, not "
        "1: only the first piece ([0]) is read, and it is the same whatever the later splits",
    **{f"judgeagent/protocols/base.py:{at}:const:str->empty": "a type's name emptied: the value of a `TypeAlias` "
       "string, a `TypeVar`'s name or `cast`'s type string, which only type checkers read (no code calls "
       "`get_type_hints` on them)" for at in ("30:23", "32:24", "35:19", "37:18", "39:15", "41:19", "104:17", "264:58", "272:38", "301:49")},
    "judgeagent/protocols/dynaeval/sandbox.py:451:61:const:str->empty": "`/libx32` left out of the sandbox's library "
        "folders: only x32 programs load from it, never the interpreter the sandbox runs (and this machine has none)",
    "judgeagent/grading/choice.py:63:7:op:Or->And": "`not text and not text.strip()` for `or`: a reply of spaces "
        "alone goes on to the letter tiers and the option texts, which find nothing in it either: (None, '') both ways",
    "judgeagent/grading/numeric.py:162:83:const:str->empty": "an ordinal word (matched between word boundaries) "
        "removed with '' rather than ' ': its neighbours are non-word characters or the text's ends, and joining "
        "them makes or unmakes no number (only whether any number is left is read)",
    "judgeagent/grading/phrase_rules.py:203:8:return:None": "`guarded` returning None for False: its four callers "
        "read it as a truth value only",
    "judgeagent/grading/text.py:76:7:op:Or->And": "`token_f1` returning early only when both are empty: with one "
        "empty, no token is common and the next line returns 0.0, as `float(pred == ref)` did",
    "judgeagent/protocols/interviewer/report.py:25:36:op:Or->And": "`adaptability` None when the first or (-> and) "
        "the last score is None: both are None exactly when there are no rows (`n` 0), so `and` reads the same "
        "(found after scoring seed 65)",
    "judgeagent/protocols/judgeagent/report/build.py:64:34:const:1->2": "`k.split(\"/\", 1)` as `split(\"/\", 2)`: "
        "the accuracy keys are `stage/difficulty`, one slash, so the second part is the same (found after scoring "
        "seed 65)",
    "judgeagent/protocols/dynaeval/walls.py:83:15:compare0:Lt->LtE": "a refused syscall's number `<= 0` taken for "
        "one this architecture lacks: none is number 0 (read on x86_64, io_setup on arm64, restart_syscall on i386), "
        "and libseccomp numbers a syscall it cannot resolve below 0",
    "judgeagent/protocols/dynaeval/walls.py:256:43:const:str->empty": "`pids.max` emptied: the write then goes to "
        "the cgroup's folder and fails, so no pids cgroup is made and `_limiter` caps the fresh host uid with "
        "RLIMIT_NPROC instead, the same number of the same processes (only the sandbox runs as that uid; the caps "
        "test of tests/test_sandbox_kernel.py sees it hold); the memory and cpuacct cgroups still list them for `_drop`",
    "judgeagent/protocols/dynaeval/sandbox.py:451:24:const:str->empty": "`/sbin` left out of the sandbox's top "
        "folders: the interpreter loads nothing from it, and test code runs no system programs (as `/libx32`)",
    "judgeagent/protocols/dynaeval/sandbox.py:461:68:const:str->empty": "`--remount-ro ''` for `--remount-ro /`: bwrap "
        "resolves its mount paths under the new root with the leading slashes stripped, so '' is the root; the "
        "kernel tests' writes to / still find it read-only",
    "judgeagent/protocols/dynaeval/sandbox.py:482:56:const:20->21": "the probe waiting 21 s, not 20, for its "
        "sandboxed `print('ok')`: only a probe that hangs shows the difference, one second later",
    "judgeagent/protocols/dynaeval/sandbox.py:548:48:const:str->empty": "bwrap's own `LANG` emptied: bwrap has no "
        "translations (its words are the same in every locale), and `--clearenv` then `--setenv LANG` give the code "
        "inside its own",
    "judgeagent/protocols/dynaeval/sandbox.py:752:55:const:0->1": "`prctl(PR_SET_PDEATHSIG, SIGKILL, 1, 0, 0)`: the "
        "kernel reads only the signal for PR_SET_PDEATHSIG and ignores the other arguments",
    "judgeagent/protocols/dynaeval/sandbox.py:548:77:const:str->empty": "bwrap's own `TMPDIR` key emptied: bwrap "
        "reads no TMPDIR, and `--clearenv` then `--setenv TMPDIR` give the code inside its own (found after scoring "
        "seed 65)",
    "judgeagent/grading/text.py:98:75:const:True->False": "the number words' alternatives shortest first: each is "
        "closed by `\\b`, so a word that opens a longer one (\"seven\", \"seventeen\") fails there and the regex tries "
        "the next alternative; the same word matches in either order (found after scoring seed 64)",
    "judgeagent/protocols/reports.py:83:16:const:str->empty": "`cast`'s type string emptied: only type checkers read "
        "it (found by stop 61's exploration, seed 100)",
    "judgeagent/protocols/base.py:251:75:op:And->Or": "`resolve_roles` seeding `chosen` with every given role, not "
                                                      "only the shared flags: a role's defaults name earlier roles "
                                                      "(already in `chosen` by then) or shared flags, and an empty "
                                                      "flag is skipped by `chosen.get(d)` either way",
    "judgeagent/models/usage.py:25:31:const:False->True": "`UsageLine`'s `total=False` as True: a TypedDict's "
        "totality is read by type checkers only (its readers import it under TYPE_CHECKING; no code validates a "
        "usage line against it) (stop 69)",
    "judgeagent/models/usage.py:16:31:const:False->True": "`_Counts`' `total=False` as True: as UsageLine's, read by "
        "type checkers only (stop 69)",
    "judgeagent/models/usage.py:31:30:const:False->True": "`UsageRow`'s `total=False` as True: as UsageLine's, read "
        "by type checkers only; rows are checked by `row_problem` (stop 69)",
    "judgeagent/models/usage.py:176:4:return:None": "`_served`'s `return \"\"` as None: its one caller reads it as a "
        "truth value first (`if served and ...`), and None is false too (stop 69)",
    "judgeagent/models/cache.py:42:23:const:str->empty": "'PRAGMA busy_timeout=30000' emptied: "
        "`sqlite3.connect(..., timeout=30)` has already set the same 30,000 ms busy timeout on the connection "
        "(`PRAGMA busy_timeout` reads 30000 without the statement), and an empty statement does nothing (stop 69)",
    "judgeagent/models/cache.py:171:35:const:False->True": "`CachedReply`'s `total=False` as True: read by type "
        "checkers only, no code validates a stored answer against it (stop 69)",
    "judgeagent/graph/relevance.py:19:15:const:50->51": "`SPREAD_DEPTH` 51, not 50: `dense_at_spread` scans the "
        "ranking greedily, each choice reading only the chunks before it, so a match within the first 50 is the "
        "match within the first 51 and within the whole ranking; one past 50 is found in the whole ranking, read "
        "next (the index's top-k of one question is the first k of its top-n, exact ties aside); only the "
        "work differs (stop 69)",
    **{f"judgeagent/graph/relevance.py:284:13:const:str->empty#{n}": "a width of the paths-check header emptied "
       "(`>19`, `>14`, `>9`, `>10`): each name fills its width exactly ('chunks from support', 'paths touching', "
       "'docs/path', 'distinct/q'), so right-aligning it changes nothing; whole keys, since the header's f-string "
       "pieces share one column and its `<6` and `' '` pieces are killed (#246 survived seed 1; stop 69)"
       for n in (244, 245, 246, 247)},
    "judgeagent/graph/relevance.py:271:26:compare0:Gt->GtE": "`_ratio` dividing where dense's mean is 0 too "
        "(`dm >= 0`): under `errstate(divide='ignore', invalid='ignore')` a graph mean over 0 gives inf and 0 / 0 "
        "gives nan, what the other branch gives (a mean is never negative) (stop 69)",
    "judgeagent/graph/specificity.py:100:19:const:1->2": "`_frequencies`' lru_cache of 2, not 1: it takes no "
        "argument, so it holds one word list either way (stop 69, second part)",
    "judgeagent/graph/walk.py:357:11:op:FloorDiv->Mult": "`_cut`'s sampling step `n * (4 * m)` for `n // (4 * m)`: "
        "the sample is then the first score alone and the cut that score; `_best_distinct` keeps every score at least "
        "the cut (a prefix of the full order, ties included) and widens while it holds fewer than k chunks, so it "
        "returns the same positions; only the work differs (stop 69, second part)",
    "judgeagent/graph/walk.py:189:11:const:str->empty": "`_candidates`' `\"document\" in kinds` as `\"\" in kinds` "
        "(never true): every walk takes the other branch, `graph.neighbours(current, kinds)`, which tests the same "
        "`\"document\" in kinds` itself and marks the entities of the current entity's documents but itself, which "
        "the walk's own entities are taken out of anyway: the same candidates, by another mask (stop 69, second "
        "part; run by the `--only` prefix 189:11, not drawn in the sample)",
    "judgeagent/graph/sample.py:799:67:const:1->2": "`_pool`'s start chunk `own[_top(relevance[own], 2)[0]]` for "
        "`_top(relevance[own], 1)[0]`: `_top` cuts one full order, so the first of its two best is its one best "
        "(stop 70)",
    **{f"judgeagent/graph/sample.py:{at}:const:str->empty": "a name of the `SeedKind` or `ReaderMode` Literal "
       "emptied: read by type checkers only; the kinds a path records and the modes a sampler takes are the strings "
       "the code writes and compares (stop 70)" for at in ("28:19", "28:28", "28:39", "29:21", "29:29", "29:40")},
    "judgeagent/graph/sample.py:481:90:const:str->empty": "the extractor identity's `spacy` key emptied: the identity "
        "is only hashed into the feature store's keys, and `\"\": version` still changes them when spaCy's version "
        "does; a store written before is missed once and its mentions read again, the same (stop 70)",
    "judgeagent/graph/sample.py:491:71:const:5->6": "`encode_ahead`'s `candidates=5` as 6: its batch is kept "
        "under the key (questions, 6), but its vectors under the distinct questions alone (`_lists`), so a sample "
        "with 5 makes the same batch from them without encoding; only the product with the chunk vectors is done "
        "again (stop 70)",
    "judgeagent/protocols/judgeagent/validate.py:245:55:const:0->1": "`_batch_at_round`'s sort of a round's records "
        "by `order.get(x.qid, 0)` with 1 for a qid outside the batch's: only extension records (qid None, `Asked`'s "
        "default) are outside it, and a round holds base records (round 0, every qid in `entry.qids`, which "
        "`load_benchmark` makes unique) or extension ones, never both, so the default is one constant per round "
        "whatever its value; the record id settles the order either way (stop 71)",
    **{f"judgeagent/protocols/judgeagent/records.py:{at}:const:False->True": "`PathInfo`'s or `RoundInfo`'s "
       "`total=False` as True: a TypedDict's totality is read by type checkers only (`batch.py`'s dataclasses name "
       "them in annotations, strings under `from __future__ import annotations`; no code validates a path or round "
       "against them) (stop 71)" for at in ("24:32", "43:33")},
    **{f"judgeagent/protocols/judgeagent/records.py:{at}:const:str->empty": "a key (or the name) of the functional "
       "`QuestionRow` TypedDict emptied: read by type checkers only; `to_dict` writes its own literal keys and rows "
       "are checked by `rows.QuestionModel`, never against QuestionRow (stop 71)"
       for at in ("77:24", "78:4", "78:22", "78:39", "78:53", "78:67", "78:81", "79:4", "79:30", "79:50", "79:79",
                  "79:97", "80:4", "80:38", "80:51", "80:73", "81:4", "81:29", "81:54", "81:84", "82:4", "82:19",
                  "82:47", "82:64", "82:87", "83:4", "83:32")},
    "judgeagent/models/retry.py:39:8:return:None": "`is_transient`'s `return False` for an error without a status "
        "as None: its one caller reads it with `not` (`if not is_transient(error) or ...`), and None is false too "
        "(stop 69, second part)",
    "judgeagent/models/client.py:169:42:const:str->empty": "`_describe`'s `getattr(error, \"message\", \"\")` as "
        "`getattr(error, \"\", \"\")`, always \"\": the openai SDK's errors hand their `message` to Exception, so "
        "`str(error)` is the same text, and other errors have no `message` (stop 70, seed 3)",
    "judgeagent/files.py:44:27:op:Sub->Add": "`check_utf8`'s `- e.object[:held].count(b\"\\n\")` as `+`: the held "
        "bytes are the decoder's unfinished multi-byte character from the last chunk, bytes of 0x80 and above, never "
        "a newline, so the count is 0 either way (20,000 random files of split and broken characters read in random "
        "chunks: none held a newline; stop 70)",
    "judgeagent/files.py:151:39:const:True->False": "`remove_stale`'s `unlink(missing_ok=True)` as False: it runs "
        "inside `contextlib.suppress(OSError)`, and the FileNotFoundError of a temporary already gone is an OSError "
        "(stop 70)",
    "judgeagent/files.py:103:34:const:True->False": "`write_atomic`'s `tmp.unlink(missing_ok=True)` as False: it "
        "runs inside `except OSError: pass`, and the FileNotFoundError of a temporary already renamed is an OSError "
        "(stop 70, seed 2)",
    "judgeagent/files.py:291:25:const:str->empty": "`field_value`'s `\".\" not in path` as `\"\" not in path` "
        "(never true): an undotted name not in the record goes on to the loop, whose one step is `record.get(name)`, "
        "None as the shortcut's (stop 70)",
    "judgeagent/files.py:58:7:const:str->empty": "`_json_lines`' `\"\\r\" in text` as `\"\" in text` (always): the "
        "replaces run on every text, and change nothing where there is no \\r (stop 70)",
    "judgeagent/files.py:29:40:const:1->2": "`check_utf8`'s chunk of `1 << 20` bytes as `2 << 20`: the size of each "
        "read, not what is read; the verdict and the line and byte it names are the same for any chunk (its test "
        "reads with chunks of 1, 2, 3 bytes and 1 MiB alike; stop 70, seed 2)",
    "judgeagent/chunking.py:31:18:const:True->False": "`_Sentence` a mutable dataclass: a private record made by "
        "`_sentences` and only read after (by `_chunk`, `_merge_short`, `_make_chunk`), never assigned to nor hashed; "
        "only hashing one would tell (stop 71)",
    "judgeagent/chunking.py:39:19:const:1->2": "`_sentencizer`'s lru_cache of 2, not 1: it takes no argument, so it "
        "holds one pipeline either way (stop 71, seed 2)",
    **{f"judgeagent/models/spec.py:17:{col}:const:str->empty": "`Role`'s Literal names emptied: a type for the "
       "checker; at run time ROLES, on the next line, is the roles' tuple (stop 71)" for col in (15, 25, 40)},
    "judgeagent/models/spec.py:177:4:return:None": "`url_credentials`' `return \"\"` as `return None`: its one "
        "caller asks only whether it found something (`if found:`), and both are false (stop 71)",
    "judgeagent/models/spec.py:174:75:const:True->False": "`parse_qsl(.., keep_blank_values=False)` in "
        "`url_credentials`: drops only parameters without a value, and a key's name with no value carries no key "
        "(stop 71)",
    **{f"judgeagent/models/spec.py:247:{col}:const:str->empty": "MODEL_ARGS' value for a generation setting "
       "(temperature, top_p, max_tokens, seed) emptied: `with_settings` reads MODEL_ARGS' values only for the keys "
       "that are not Generation's fields, and names only its keys in errors (stop 71, seed 3)" for col in (29, 53, 76, 98)},
    "judgeagent/benchmarks/formats.py:67:12:const:str->empty": "`R = TypeVar(\"R\", ...)` as `TypeVar(\"\")`: the "
        "name is the type checker's; at run time `typed` never reads it (stop 71)",
    "judgeagent/benchmarks/formats.py:351:7:compare0:Lt->LtE": "`last_boxed`'s `i < 0` as `i <= 0`: `i` is where "
        "the first `{` after `start` is, and `text[start]` is the `\\` of `\\boxed`, so a found `{` is past index "
        "0 (stop 71)",
    "judgeagent/benchmarks/formats.py:528:64:const:str->empty": "iwslt's suffix `.tgz` as `\"\"`: only `_files` "
        "reads a format's suffixes, and iwslt's `custom_load` reads the archive it is given without it (stop 71)",
    "judgeagent/embedding.py:80:36:const:True->False": "`_load_static`'s `folder.parent.mkdir(parents=True, ...)` "
        "as `parents=False`: `save_pretrained` has just written the temporary, the folder's sibling, with its "
        "parents made (model2vec 0.10's `mkdir(exist_ok=True, parents=True)`), so the parent is there and the mkdir "
        "makes nothing either way (stop 71)",
    "judgeagent/embedding.py:162:31:compare0:Gt->GtE": "`encode`'s `len(texts) > SMALL` as `>=`: a call of exactly "
        "64 texts takes the lock (runs alone) instead of running beside others; `sized(64)` gives it one thread "
        "either way, so its bytes are the same; only whether two such calls overlap changes (stop 71)",
    "judgeagent/embedding.py:277:9:const:100000->100001": "`_SHARD` one larger: `build_index` adds the same vectors "
        "in the same order in pieces of 100,001 instead of 100,000, which bounds only the copy each `add` makes; a "
        "flat or IVF-PQ index holds the same vectors either way; an HNSW graph over more than 100,000 vectors splits "
        "its insertions one vector later, another graph as valid, whose measured recall the manifest records; "
        "nothing fixes the piece size (stop 71, seed 2)",
    "judgeagent/protocols/judgeagent/batch.py:67:79:const:1->2": "the reader's pool of 2 threads, not 1: its tasks "
        "(spaCy's mentions per batch group, the sampler's read-ahead and encode-ahead) fill memories keyed by their "
        "inputs, whose values do not depend on the thread or the order that computes them (a batch another thread "
        "is encoding is waited for, `PathSampler._batch_of`), and each batch awaits its own futures: only the CPU "
        "schedule changes, and a run writes the same records (stop 71)",
    "judgeagent/protocols/judgeagent/batch.py:318:66:const:False->True": "`_base_question`'s `held=False` default "
        "as True: its one caller, `run_batch`, always passes `item.qid in held` (stop 71, seed 2)",
    "judgeagent/protocols/judgeagent/batch.py:489:52:const:False->True": "`_generate`'s `choice=False` default as "
        "True: its one caller, `_extension_round`, always passes `choice` (stop 71, seed 3)",
}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    col: int
    what: str
    source: str
    before: str = ""
    after: str = ""
    """The mutated expression before and after the change (what a survivor's line in the report shows)."""

    @property
    def key(self) -> str:
        """Where and what: unique within a module (two constants on one column differ in `what` or position)."""
        return f"{self.module}:{self.line}:{self.col}:{self.what}"


_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.And: ast.Or, ast.Or: ast.And,
}


def _points(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Every place a mutant can go, with what it does there."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _SWAPS:
                    yield node, f"compare{i}:{type(op).__name__}->{_SWAPS[type(op)].__name__}"
        elif isinstance(node, (ast.BinOp, ast.BoolOp)) and type(node.op) in _SWAPS:
            yield node, f"op:{type(node.op).__name__}->{_SWAPS[type(node.op)].__name__}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "not:removed"
        elif isinstance(node, ast.Constant) and id(node) not in docstrings:
            if isinstance(node.value, bool):
                yield node, f"const:{node.value}->{not node.value}"
            elif isinstance(node.value, (int, float)):
                yield node, f"const:{node.value}->{node.value + 1}"
            elif isinstance(node.value, str) and node.value:
                yield node, "const:str->empty"
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            yield node, "return:None"


def _apply(node: ast.AST, what: str) -> None:
    kind = what.split(":")[0]
    if kind.startswith("compare"):
        i = int(kind.removeprefix("compare"))
        node.ops[i] = _SWAPS[type(node.ops[i])]()  # type: ignore[attr-defined]
    elif kind == "op":
        node.op = _SWAPS[type(node.op)]()  # type: ignore[attr-defined]
    elif kind == "not":
        raise AssertionError("handled by the parent")
    elif kind == "const":
        value = node.value  # type: ignore[attr-defined]
        node.value = (not value) if isinstance(value, bool) else (value + 1 if isinstance(value, (int, float))  # type: ignore[attr-defined]
                                                                  else "")
    elif kind == "return":
        node.value = ast.Constant(None)  # type: ignore[attr-defined]


class _Unnot(ast.NodeTransformer):
    def __init__(self, target: tuple[int, int]) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and (node.lineno, node.col_offset) == self.target:
            return node.operand
        return node


def mutants(module: str) -> list[Mutant]:
    text = (ROOT / module).read_text()
    tree = ast.parse(text)
    # A string that is a statement of its own (an attribute's docstring) is read by no code: emptying it changes
    # nothing. Skipped here, not in `_points`, so that the other mutants keep their numbers (`#n`).
    unread = {id(node.value) for node in ast.walk(tree)
              if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
    out = []
    for index, (node, what) in enumerate(list(_points(tree))):
        if id(node) in unread:
            continue
        copied = copy.deepcopy(tree)
        twin = [n for n, w in _points(copied)][index]
        if what == "not:removed":
            copied = _Unnot((twin.lineno, twin.col_offset)).visit(copied)
        else:
            _apply(twin, what)
        source = ast.unparse(ast.fix_missing_locations(copied))
        if source != ast.unparse(tree) and all(m.source != source for m in out):
            before = (repr(node.value) if what.startswith("const:str")  # type: ignore[attr-defined]
                      else ast.get_source_segment(text, node) or ast.unparse(node))  # (a part of an f-string)
            after = ast.unparse(node.operand) if what == "not:removed" else ast.unparse(twin)  # type: ignore[attr-defined]
            out.append(Mutant(module, node.lineno, node.col_offset, f"{what}#{index}", source,
                              _one_line(before), _one_line(after)))
    return out


def _one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def _backup(path: Path) -> Path:
    return path.with_name(path.name + ".unmutated")


def restore_left_over() -> None:
    """A run killed outright (SIGKILL) leaves its mutant in place and the module's text beside it: put it back."""
    for backup in (ROOT / "judgeagent").rglob("*.unmutated"):
        backup.replace(backup.with_suffix(""))
        print(f"restored {backup.with_suffix('').relative_to(ROOT)} from a run that was killed")


def run(mutant: Mutant | None, tests: list[str], timeout: float, module: str = "") -> str:
    """killed, survived or timeout (a timeout counts as killed: the defect was noticed). No mutant: the module as
    it is (the baseline, which must survive)."""
    path = ROOT / (mutant.module if mutant else module)
    original = path.read_text()
    _backup(path).write_text(original)
    try:
        path.write_text(mutant.source if mutant else original)
        # A bytecode cache keyed on mtime (whole seconds) and size could still hold the last mutant of equal size
        Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's modules, not an editable install's
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False, env=env)
        LAST_OUTPUT[:] = (done.stdout + done.stderr).splitlines()[-15:]
        return "survived" if done.returncode == 0 else "killed"
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        path.write_text(original)
        Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
        _backup(path).unlink(missing_ok=True)


LAST_OUTPUT: list[str] = []
"""The last lines pytest printed in `run`: what a failing baseline says."""


RETRY_SCALE = 4.0
"""A mutant that times out runs once more with this many times the time: on a loaded machine a slow run is not a
hang, and counting it as killed inflates the score (stop 58: 4 of base.py's first-pass timeouts, rerun longer, were
2 equivalent mutants and 2 survivors)."""


def settle(mutant: Mutant, tests: list[str], timeout: float,
           runner: Callable[[Mutant, list[str], float], str] = run) -> str:
    """killed, survived or timeout, a timeout only after a second run with `RETRY_SCALE` times the time."""
    outcome = runner(mutant, tests, timeout)
    return runner(mutant, tests, RETRY_SCALE * timeout) if outcome == "timeout" else outcome


TIMEOUT_SCALE, TIMEOUT_FLOOR, BASELINE_LIMIT = 3.0, 60.0, 1800.0
"""A mutant's tests get 3x the unmutated run's time, at least 60 s (a fixed 300 s counted runs slowed by a loaded
machine as kills); the unmutated run itself gets 30 minutes."""


def mutant_timeout(given: float | None, baseline: float) -> float:
    """Seconds for one mutant's test run: `--timeout` when given, else scaled from the unmutated run's `baseline`."""
    return given if given is not None else max(TIMEOUT_FLOOR, TIMEOUT_SCALE * baseline)


def pick(found: list[Mutant], sample: int | None, seed: int, only: list[str]) -> list[Mutant]:
    """The mutants to run: those whose key starts with one of `only` (all if none), then a random `sample` of
    them (all if None or at least as many), the same for the same seed."""
    chosen = [m for m in found if not only or any(m.key.startswith(k) for k in only)]
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample), key=lambda m: (m.line, m.col, m.what))
    return chosen


def _kept_rows(out: Path, run_now: set[str]) -> tuple[list[str], list[str]]:
    """The table rows and survivor lines of an earlier report, for the modules not run this time."""
    if not out.is_file():
        return [], []
    rows, survivors = [], []
    for line in out.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("| judgeagent/") and cells[1].strip() not in run_now:
            if len(cells) == 9:  # a report from before `run` and `mutants run` (every mutant run)
                line = f"|{cells[1]}| {cells[2].strip()} of {cells[2].strip()} |{'|'.join(cells[3:8])}| all |"
            rows.append(line)
        elif line.startswith("- `judgeagent/") and line[3:].split(":")[0] not in run_now:
            survivors.append(line)
    return rows, survivors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="modules of TARGETS (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "mutants.md")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per mutant's test run (default: 3x the unmutated run's time, at least 60)")
    parser.add_argument("--list", action="store_true", help="only count the mutants")
    parser.add_argument("--tests", nargs="+", help="the tests to run instead of the module's in TARGETS")
    parser.add_argument("--sample", type=int, help="run a random N of each module's mutants")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--only", nargs="+", default=[], help="only the mutants whose key starts with one of these")
    args = parser.parse_args()
    chosen = args.modules or list(TARGETS)
    unknown = [m for m in chosen if not (ROOT / m).is_file() or (m not in TARGETS and not args.tests)]
    if unknown:
        sys.exit(f"mutants: {', '.join(unknown)}: not a module of TARGETS in scripts/mutants.py; add it there with "
                 "its tests, or name them with --tests")
    # SIGTERM (a killed job, a CI timeout) as Ctrl-C, so that the mutated module is restored on the way out.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    restore_left_over()
    rows, survivors = [], []
    for module in chosen:
        found = mutants(module)
        if args.list:
            print(f"{module}: {len(found)} mutants")
            continue
        todo = pick(found, args.sample, args.seed, args.only)
        tests = args.tests or TARGETS[module]
        start = time.perf_counter()
        if run(None, tests, args.timeout or BASELINE_LIMIT, module) != "survived":
            # Once more before giving up: on a loaded machine a test can fail once (stop 61 lost a module's sample to
            # one such failure, which passed when run again); a failure twice in a row is the tests' own.
            print(f"mutants: the tests of {module} failed without a mutant; running them again:\n  "
                  + "\n  ".join(LAST_OUTPUT), file=sys.stderr, flush=True)
            if run(None, tests, args.timeout or BASELINE_LIMIT, module) != "survived":
                sys.exit(f"mutants: the tests of {module} ({' '.join(tests)}) fail without a mutant: make them pass "
                         "first:\n  " + "\n  ".join(LAST_OUTPUT))
            start = time.perf_counter()
        timeout = mutant_timeout(args.timeout, time.perf_counter() - start)
        print(f"{module}: {len(todo)} of {len(found)} mutants; the tests pass unmutated in "
              f"{time.perf_counter() - start:.0f} s; {timeout:.0f} s a mutant", flush=True)
        outcome = {}
        for n, m in enumerate(todo, start=1):
            outcome[m.key] = settle(m, tests, timeout)
            print(f"[{n}/{len(todo)}] {outcome[m.key]:8} {m.key}  {m.before} -> {m.after}", flush=True)
        counted = [k for k in outcome if k.rpartition("#")[0] not in EQUIVALENT and k not in EQUIVALENT]
        alive = [k for k in counted if outcome[k] == "survived"]
        survivors += [f"- `{m.key}`: `{m.before}` -> `{m.after}`" for m in todo if m.key in alive]
        score = 1 - len(alive) / len(counted) if counted else 1.0
        ran = "all" if len(todo) == len(found) else (
            f"sample {len(todo)}, seed {args.seed}" if args.sample is not None and not args.only else
            f"only {len(todo)}")
        rows.append(f"| {module} | {len(todo)} of {len(found)} | {len(counted) - len(alive)} | {len(alive)} | "
                    f"{len(todo) - len(counted)} | {100 * score:.0f}% | {time.perf_counter() - start:.0f} s | {ran} |")
        print(rows[-1], flush=True)
    if args.list:
        return
    kept_rows, kept_survivors = _kept_rows(args.out, set(chosen))
    lines = ["# Mutation testing", "", f"`scripts/mutants.py`, {time.strftime('%Y-%m-%d')}: each mutant one defect, "
             "the module's tests run against it (docs/testing.md).", "",
             "| module | mutants run | killed | survived | equivalent | score | time | run |",
             "|---|---|---|---|---|---|---|---|", *kept_rows, *rows, "", "## Surviving mutants", ""]
    lines += (kept_survivors + survivors) or ["none"]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
