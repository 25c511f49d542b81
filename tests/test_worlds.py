"""Worlds (issue 12, D-49): many independent cases in one grounding answer
exactly as each case answers alone."""

from __future__ import annotations

import io
import subprocess
import sys

import clingo
import pytest
from clingo import ast
from conftest import FIXTURES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from manifests import entry, model, runtime

from ome_asp.commands import serve
from ome_asp.errors import InternalError, OmeAspError
from ome_asp.input import loader, profiles
from ome_asp.render import report
from ome_asp.solver import ask, engine, programs, worlds
from ome_asp.solver.answer import decode, decode_texts
from ome_asp.solver.facts import VALUE_TABLES, Query, build_facts, build_world_facts
from ome_asp.solver.programs import Variant
from ome_asp.testing import strategies

ROW_VALUES = ("range_bound", "range_width", "mv_has_framework", "mv_declares", "mv_version", "mv_architecture",
              "mv_quantization", "mv_size")  # value tables of serve's rows (input.lp)


def rewritten(text: str, free=frozenset()) -> list[str]:
    found = []
    ast.parse_string(text, lambda s: found.append(str(worlds.rewrite(s, free))))
    return found[1:]  # without #program base.


def parsed(text: str) -> list:
    found: list = []
    ast.parse_string(text, found.append)
    return found


def test_the_rewrite_puts_the_world_first_in_every_atom_never_in_other_terms():
    assert rewritten("p(X, sig(Y)) :- q(X, Y), not r(X), X != 1.") == [
        "p(World,X,sig(Y)) :- q(World,X,Y); not r(World,X); X != 1."
    ]
    assert rewritten("c(Q, N) :- q(Q), N = #count { R: e(Q, R) }.") == [
        "c(World,Q,N) :- q(World,Q); N = #count { R: e(World,Q,R) }."
    ]
    assert rewritten("{ s(Q, R) : k(Q, R) } = 1 :- h(Q).") == [
        "1 = { s(World,Q,R): k(World,Q,R) } :- h(World,Q)."
    ]


def test_rules_binding_no_world_get_the_guard():
    """An encoding's fact, a pool, a body of negations or aggregates only:
    world(W) binds the world (a rule with a positive atom needs none)."""
    assert rewritten("side(format). s(a;b). :- not p. n(N) :- N = #count { X: p(X) }.") == [
        "side(World,format) :- world(World).",
        "s(World,a;World,b) :- world(World).",
        "#false :- world(World); not p(World).",
        "n(World,N) :- world(World); N = #count { X: p(World,X) }.",
    ]


def test_show_defined_and_minimize_carry_the_world():
    assert rewritten("#show p/2. #show s(Q) : s(Q, _, _). #defined f/1. #minimize { C@2, Q : k(Q, C) }.") == [
        "#show p/3.",
        "#show s(World,Q) : s(World,Q,_,_).",
        "#defined f/2.",
        ":~ k(World,Q,C). [C@2,World,Q]",  # two worlds' equal weights never merge
    ]


def test_world_free_predicates_are_the_value_tables_and_what_only_they_derive():
    """D-130: a predicate derived from value tables and constants alone has
    no world; one that reads an object, a shown one, or one derived from a
    predicate with a world has one."""
    program = parsed(
        "side(format; framework). reading(W, S) :- weights_stored(W, S, V), side(S). "
        "score(W) :- reading(W, format), not weights_absent(W, format). "
        "scored(R, W) :- entry(R, I, S, W), score(W). shown(W) :- weights(W). #show shown/1. "
        "later(W) :- score(W), scored(R, W). { pick(W) } :- weights(W).")
    assert worlds.world_free(program) == {
        ("side", 1), ("reading", 2), ("score", 1), ("weights_stored", 3), ("weights_absent", 2), ("weights", 1)}
    assert rewritten("score(W) :- reading(W, format). scored(R, W) :- entry(R, I, S, W), score(W). "
                     "n(R) :- side(S), not entry(R, 0, S, x).", frozenset({("score", 1), ("reading", 2), ("side", 1)})) == [
        "score(W) :- reading(W,format).",  # once for the batch
        "scored(World,R,W) :- entry(World,R,I,S,W); score(W).",
        "n(World,R) :- world(World); side(S); not entry(World,R,0,S,x).",  # a world-free atom binds no world
    ]


def test_a_rule_making_a_value_table_a_worlds_is_refused():
    with pytest.raises(InternalError, match="value tables with a world"):
        worlds.world_free(parsed("weights(W) :- entry(R, I, S, W)."))


def test_the_batch_programs_world_free_predicates():
    """What the batch variants ground once per batch: a new one is reviewed
    here (each row of a world-free predicate must say something of its own
    values only, so the union of the worlds' tables serves each world)."""
    derived = {name for name, _ in worlds.free_in(Variant.BATCH_SELECT.files) if name not in VALUE_TABLES}
    assert derived == {
        "advisory_names_format", "bound", "check_bit", "check_order", "component_field", "component_field_step", "constant_reason",
        "component_position", "label_field", "message_check", "named_component_order", "named_operator",
        "ordering_operator", "part_order", "side", "sig_has_additional", "version_suffixed", "weight_reading",
        "weight_shown", "weights_score", "weights_shown"}


def test_the_world_variable_is_the_rewrites_own():
    """Wherever a statement names it (the rewrite enters no term, so the
    statement's text is searched); a string "World" is no variable."""
    for text in ("p(World) :- q(World).", "p(X) :- q(X), X != World.", "n(N) :- N = #count { World: p(World) }.",
                 "#show s(Q) : s(Q, World).", "p(f(World)) :- q."):
        with pytest.raises(ValueError, match="World"):
            rewritten(text)
    assert rewritten('p("World", "a\\"World").') == ['p(World,"World","a\\"World") :- world(World).']


def test_every_head_and_body_form_gets_the_world_in_its_atoms():
    """The rewrite enters only the parts of a statement that hold atoms:
    disjunctions, conditional literals, head and body aggregates, classical
    negation, pools."""
    assert rewritten("p(X) ; q(X) : r(X) :- s(X). -p(X) :- t(X), not -q(X). "
                     "#sum { X, Y : u(X, Y) ; V : v(V) } :- w. :- #max { X : u(X, _) } > 3.") == [
        "p(World,X); q(World,X): r(World,X) :- s(World,X).",
        "-p(World,X) :- t(World,X); not -q(World,X).",
        "#sum { X,Y: u(World,X,Y); V: v(World,V) } :- w(World).",
        "#false :- world(World); 3 < #max { X: u(World,X,_) }.",
    ]


def test_the_batch_variants_share_each_files_rewrite(monkeypatch):
    """A file is rewritten once per distinct set of world-free predicates it
    mentions, not once per program it is loaded in (compile_all: 0.63 s ->
    0.15 s of CPU, issue 40); fails with the rewrites keyed by each program's
    whole world-free set (46 rewrites of 16 files)."""
    monkeypatch.setattr(worlds, "_compiled", {})
    worlds.compile_all()
    variants = (Variant.BATCH_EXPLAIN, Variant.BATCH_SELECT, Variant.BATCH_RANK, Variant.ADMIT)
    distinct = {(path, worlds.free_in(v.files) & worlds._file(path)[2]) for v in variants for path in worlds._paths(v.files)}
    assert len(worlds._compiled) == len(distinct) < sum(len(v.files) for v in variants)


def test_world_facts_put_the_world_first_and_keep_user_text():
    program = 'entry(csr("a(b"),0,sig(1),w(1)).\nquery(1).\nsig_pipeline().\nx("\\nfoo(").\n'
    assert worlds.world_facts(program, 7) == (
        'entry(7,csr("a(b"),0,sig(1),w(1)).\nquery(7,1).\nsig_pipeline(7).\nx(7,"\\nfoo(").\nworld(7).\n'
    )
    assert worlds.world_facts('query(1).\nx("switch(").\n', 7, 2) == 'query(7,1).\nx(7,"switch(").\nworld_profile(7,2).\n'


def test_a_worlds_facts_leave_its_switches_to_the_batch():
    """A world's facts have no switch facts and no world/1 fact: its
    world_profile/2 fact implies both (worlds.declaration), 12 lines fewer a
    code-v0.1.5 case (issue 40); its program alone (Facts.whole: the
    fallback of a batch with no single answer set) has its switches. Fails
    with the switches built for each world and filtered out of its text."""
    cluster = loader.load([str(FIXTURES / "worked-example" / "manifests.yaml")], profile=profiles.PROFILES["code-v0.1.5"])
    query = Query("llama-demo", model="llama-3-2-3b-instruct")
    facts = build_world_facts([(cluster, [query])])[0]
    assert "switch(" not in facts.program and "world(" not in worlds.world_facts(facts.program, 0, 1)
    alone = build_facts(cluster, [query])
    assert sorted(line for line in facts.whole.splitlines() if line.startswith("switch(")) == sorted(
        line for line in alone.program.splitlines() if line.startswith("switch("))


def test_a_batch_needs_facts_built_together():
    """Built apart, two cases number their signatures and rank their
    numbers each on its own: their value tables cannot be shared."""
    query = Query("ns", model="m")
    apart = [_case([_model(), _runtime("rt")], query), _case([_model(), _runtime("rt")], query)]
    with pytest.raises(InternalError, match="built together"):
        worlds.batch_program(apart)


def test_the_worked_examples_world_has_at_most_50_facts():
    """Issue 26 item 3: the worked example's world had 101 facts (12
    switches, 36 of its weights, 8 of its signature, 2 versions, world/1);
    its value tables and switches now come once per batch (D-130,
    docs/performance.md)."""
    cluster = loader.load([str(FIXTURES / "worked-example" / "manifests.yaml")])
    query = Query("llama-demo", model="llama-3-2-3b-instruct")
    batch = build_world_facts([(cluster, [query]), (cluster, [query])])
    program = worlds.batch_program(batch)
    own = worlds.world_facts(batch[1].program, 1, 1)
    assert own in program
    assert len(own.splitlines()) <= 32, own  # world/1 and world_profile/2 included; 101 before D-130, 44 before rows
    assert "entry_row(1," in own and "entry(1," not in own  # a runtime and an entry one row each (input.lp, issue 40)


def test_rows_imply_exactly_the_facts_they_stand_for():
    """input.lp's runtime_row/2, entry_row/7, runtime_range_row/2 and
    model_row/2 (the facts of serve's worlds, issue 40) derive
    runtime_declared, runtime_name_rank, entry, entry_auto_select,
    entry_priority, entry_name_folded, the size range's and the model's
    facts as facts.py writes them apart: the clusters of the conformance
    cases about entries, admission and scoring, and of the other profiles'
    (absent autoSelect and priority, W5's folded names, ranges of one bound,
    Go's float64 sizes). Fails with a row's `none` read as a value, with a
    range's width read from its max bound, and with a model's rule left out
    (quantization)."""
    from ome_asp.conformance import cases

    def atoms(program: str) -> set[str]:
        ctl = clingo.Control()
        ctl.load(str(programs.encoding_dir() / "input.lp"))
        ctl.add("base", [], program)
        ctl.ground([("base", [])])
        return {str(a.symbol) for a in ctl.symbolic_atoms
                if not a.symbol.name.endswith("_row") and a.symbol.name not in ROW_VALUES}

    compared = 0
    areas = ("qualification", "admission", "scoring", "profiles")
    for directory, name in cases.find([str(FIXTURES / "cases" / area) for area in areas]):
        case = cases.load_case(directory, name)
        try:
            cluster = loader.load(["-"], stdin=io.BytesIO(case.manifests), profile=profiles.PROFILES[case.profile])
        except OmeAspError:
            continue  # an input error: no facts
        query = [Query("default", model="m")]
        rows = build_world_facts([(cluster, query)])[0]
        assert "entry_row(" in rows.program or "entry(" not in rows.program
        assert atoms(rows.whole) == atoms(build_facts(cluster, query).program), name
        compared += 1
    assert compared > 100


def test_a_size_range_and_a_model_are_one_row_each_and_values_of_the_batch():
    """A world writes a runtime's modelSizeRange as one row,
    runtime_range_row(R, rng(N)) (D-325), and its model as one,
    model_row(M, mv(N)) (D-326): their bounds and declarations are values of
    the batch, written once for every world that sets the same. A range was
    4 lines a world, a model 8 (a T1 world: 38 lines, 26 now). Fails with a
    range's or a model's facts written per world."""
    query = Query("ns", model="m")
    ranged = runtime("rt", modelSizeRange={"min": "1B", "max": "10B"})
    batch = _together([([_model(), ranged, {**ranged, "metadata": {"name": "rt2"}}], query), ([_model(), ranged], query)])
    for facts in batch:
        lines = facts.program.splitlines()
        assert [line.partition("(")[0] for line in lines if line.startswith(("runtime_", "model"))] == [
            "model_row", *["runtime_range_row"] * len(facts.runtimes), *["runtime_row"] * len(facts.runtimes)], lines
    tables = batch[0].values.program
    assert [line.partition("(")[0] for line in tables.splitlines() if line.startswith("range_")] == [
        "range_bound", "range_bound", "range_width"]
    assert "mv_declares(mv(1)," in tables and "mv(2)" not in tables


def test_split_worlds_takes_the_world_out():
    assert worlds.split_worlds(["rank_key(2,1,csr(\"a\"),(1,2,3,4))", "p(1)", "q(1,\"x,y\")"]) == {
        2: ['rank_key(1,csr("a"),(1,2,3,4))'],
        1: ["p", 'q("x,y")'],
    }


def _case(cluster_documents, query: Query, profile=profiles.V1_3):
    return build_facts(serve._case_cluster(cluster_documents, profile), [query])


def _together(cases: list) -> list:
    return build_world_facts([(serve._case_cluster(documents, profiles.V1_3), [query]) for documents, query in cases])


def _runtime(name, fmt="safetensors"):
    return runtime(name, supportedModelFormats=[entry(modelFormat={"name": fmt, "version": "1.0.0"})])


def _model(fmt="safetensors"):
    return model("m", modelFormat={"name": fmt, "version": "1.0.0"})


def test_a_world_matches_its_own_signatures_only():
    """The signatures' facts are the batch's (D-130), but a world matches its
    model with its entries' signatures alone (D-160): the worlds' E15 pieces
    were grounded per (model, every signature of the batch), 585 atoms a T1
    world (docs/performance.md)."""
    query = Query("ns", model="m")
    batch = _together([([_model(), _runtime("rt")], query), ([_model(), _runtime("rt", "onnx")], query)])
    ctl = engine.ground_program(worlds.batch_program(batch), Variant.BATCH_EXPLAIN.files, worlds.load)
    pairs = {(a.symbol.arguments[0].number, str(a.symbol.arguments[2])) for a in ctl.symbolic_atoms.by_signature("pair", 3)}
    assert pairs == {(w, signature) for w, facts in enumerate(batch) for signature in sum(facts.signatures.values(), [])}
    assert len(pairs) == 2  # the two worlds' signatures differ


def test_a_world_never_sees_another_worlds_objects():
    """Same object names, same namespaces in every world: each world's answer
    is its own cluster's (here world 0's runtime supports the model, world
    1's runtime of the same name does not, world 2 has none)."""
    query = Query("ns", model="m")
    batch = _together([
        ([_model(), _runtime("rt")], query),
        ([_model(), _runtime("rt", "onnx")], query),
        ([_model()], query),
    ])
    answers = ask.solve_worlds(batch, [1, 1, 1], Variant.EXPLAIN)
    assert [str(a.queries[1].selected) for a in answers] == ["ClusterServingRuntime rt", "None", "None"]
    assert answers[1].queries[1].verdicts and not answers[2].queries[1].verdicts
    for facts, answer in zip(batch, answers):
        alone = ask.solve(facts, 1, Variant.EXPLAIN)
        assert report.explain_json(query, answer.queries[1]) == report.explain_json(query, alone.queries[1])


def test_decode_texts_is_decode_of_the_printed_atoms():
    facts = _case([_model(), _runtime("rt")], Query("ns", model="m"))
    ctl = engine.ground_program(facts.program, Variant.EXPLAIN.files)
    with ctl.solve(yield_=True) as handle:
        symbols = [next(iter(handle)).symbols(shown=True)][0]
    a, b = decode(symbols, 1, facts), decode_texts([str(s) for s in symbols], 1, facts)
    assert report.explain_json(Query("ns", model="m"), a.queries[1]) == report.explain_json(Query("ns", model="m"), b.queries[1])


def test_the_rewritten_encoding_replays_with_plain_clingo(tmp_path):
    """`python -m ome_asp.solver.worlds` prints the rewritten encoding: with
    the worlds' facts, plain clingo gives the batch's shown atoms."""
    query = Query("ns", model="m")
    batch = _together([([_model(f), _runtime("rt")], query) for f in ("safetensors", "onnx")])
    files = Variant.BATCH_EXPLAIN.files
    encoding = subprocess.run([sys.executable, "-m", "ome_asp.solver.worlds", *files], capture_output=True, text=True, check=True).stdout
    program = encoding + worlds.batch_program(batch)[len(worlds.declaration()):]
    ctl = clingo.Control()
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    with ctl.solve(yield_=True) as handle:
        shown = sorted(str(s) for s in next(iter(handle)).symbols(shown=True))
    ctl = engine.ground_program(worlds.declaration() + program[len(encoding):], files, worlds.load)
    with ctl.solve(yield_=True) as handle:
        assert shown == sorted(str(s) for s in next(iter(handle)).symbols(shown=True))


# --- equivalence: a batch of random cases answered as worlds = each alone ------


@st.composite
def cases(draw):
    """A random case under a random profile (mixed --model/--isvc queries,
    outcomes included: code-v0.1.5's panics, errors)."""
    documents, query = draw(strategies.clusters())
    return case(documents, query, draw(st.sampled_from(list(profiles.PROFILES.values()))))


def case(documents: list, query: dict, profile: profiles.Profile):
    """(cluster, query, profile), or None for manifests the profile refuses."""
    try:
        cluster = serve._case_cluster(documents, profile)
    except OmeAspError:
        return None
    query = Query(query["namespace"], model=query.get("model"), isvc=query.get("isvc"))
    return cluster, query, profile


def _built_together(batch: list) -> list:
    """(facts, query, profile) of each case, the facts built together."""
    return list(zip(build_world_facts([(cluster, [query]) for cluster, query, _ in batch]),
                    [query for _, query, _ in batch], [profile for _, _, profile in batch]))


def _explain_text(query, answer, profile) -> str:
    q = answer.queries[1]
    if q.error is not None:
        return f"error {q.error}"
    if q.ended is not None:
        return report.to_json(report.outcome_json(report.query_json(query, q), q.ended, profile.name))
    return report.to_json(report.explain_json(query, q, profile.name))


# A size range with one bound: v1.3 reads it, code-v0.1.5 panics (its switch one_bounded_range).
ONE_BOUND = ([model("m", modelParameterSize="7B"), runtime("a", modelSizeRange={"min": "1B"})], {"namespace": "default", "model": "m"})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(cases(), min_size=1, max_size=12), st.booleans())
@example([case(*ONE_BOUND, profiles.PROFILES[name]) for name in ("v1.3", "code-v0.1.5")], False)
def test_a_batch_of_worlds_answers_each_case_as_it_answers_alone(batch, outcome):
    """Issue 12: report for report, byte for byte (explain's JSON; with
    outcome.lp also everything select reads). The example fails when every
    world reads the first profile's switches (worlds.batch_program numbering
    each world's profile 1; issue 39: caught only by Hypothesis, after minutes)."""
    batch = _built_together([c for c in batch if c is not None])
    answers = ask.solve_worlds([facts for facts, _, _ in batch], [1] * len(batch), Variant.SELECT if outcome else Variant.EXPLAIN)
    for (facts, query, profile), answer in zip(batch, answers):
        alone = ask.solve(facts, 1, Variant.SELECT if outcome else Variant.EXPLAIN)
        assert _explain_text(query, answer, profile) == _explain_text(query, alone, profile)
        assert answer.denied == alone.denied and answer.unknown_classes == alone.unknown_classes
        if outcome:
            assert repr(answer.queries[1].outcome) == repr(alone.queries[1].outcome)


def test_an_empty_batch_answers_nothing():
    """Hypothesis drew a batch of clusters it then filtered to none: solving
    no world raised an internal error (no value tables to read)."""
    assert ask.solve_worlds([], [], Variant.ADMIT) == []


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(cases(), min_size=1, max_size=8))
def test_admission_as_worlds_equals_each_alone(batch):
    facts = [f for f, _, _ in _built_together(list(filter(None, batch)))]
    for answer, alone in zip(ask.solve_worlds(facts, [0] * len(facts), Variant.ADMIT), (ask.solve(f, 0, Variant.ADMIT) for f in facts)):
        assert (answer.denied, answer.unknown_classes) == (alone.denied, alone.unknown_classes)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(strategies.clusters(max_runtimes=5), st.sampled_from(["explain", "select", "admit"]),
                          st.sampled_from(list(profiles.PROFILES))), min_size=1, max_size=8))
def test_cases_answered_together_equal_the_command_line(batch):
    """check, gen and diff answer cases as worlds (cases.answers): each answer
    is the one the command line gives its case alone."""
    from ome_asp.conformance import cases
    from ome_asp.render import case_files

    requests = [(command, case_files.dump_manifests(documents).encode(), query, profile, ())
                for (documents, query), command, profile in batch]
    assert cases.answers(requests) == [cases.answer(*request) for request in requests]
