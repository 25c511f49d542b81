"""docs/spec.md's and docs/profiles.md's examples run, byte for byte (issue 35;
the convention is the spec's section 0.4).

A `console` block is a list of commands (`$ ome-asp …`, run from the
repository's root) each followed by what it prints: stdout's lines, stderr's
lines marked `   # stderr`, and a last line `# exit N` for a nonzero exit code.
A `yaml` block after a paragraph ending by naming a file is that file's text.
A rule's table whose rows are conformance cases names them
(`q19-row-1` to `q19-row-8` in fixtures/cases/qualification/): one case per
row, each citing the rule.
"""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from conftest import ROOT, run_cli

from ome_asp.input import sizes

SPEC = ROOT / "docs" / "spec.md"
EXAMPLES = [SPEC, ROOT / "docs" / "profiles.md"]  # the documents whose console blocks are run
STDERR = "   # stderr"
_EXIT = re.compile(r"# exit (\d+)$")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def console_blocks(text: str) -> list[str]:
    return [body for info, body in _FENCE.findall(text) if info == "console"]


def examples(block: str) -> list[tuple[list[str], str, str, int]]:
    """Each command of a console block: (argv after `ome-asp`, stdout, stderr, exit code)."""
    found: list[tuple[list[str], str, str, int]] = []
    for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
        if not chunk:
            continue
        command, *lines = chunk.splitlines()
        words = shlex.split(command.removeprefix("$ "))
        assert command.startswith("$ ") and words[0] == "ome-asp", f"a console block holds `$ ome-asp` commands: {command!r}"
        code = 0
        if lines and _EXIT.match(lines[-1]):
            code = int(_EXIT.match(lines.pop()).group(1))
        stdout = "".join(f"{line}\n" for line in lines if not line.endswith(STDERR))
        stderr = "".join(f"{line.removesuffix(STDERR)}\n" for line in lines if line.endswith(STDERR))
        found.append((words[1:], stdout, stderr, code))
    return found


def _examples() -> list[tuple[str, str, list[str], str, str, int]]:
    """Every command of EXAMPLES' console blocks: (document, section, argv, stdout, stderr, code)."""
    found = []
    for document in EXAMPLES:
        text = document.read_text(encoding="utf-8")
        for block in console_blocks(text):
            section = re.findall(r"^##+ (\d+(?:\.\d+)?)", text[: text.index(block)], re.M)[-1]
            found += [(document.stem, section, *example) for example in examples(block)]
    return found


def test_the_worked_sections_have_examples():
    """spec.md's sections 13.2 to 14.3 and profiles.md's 3.6 are run, not only read."""
    sections = {(document, section) for document, section, *_ in _examples()}
    assert {("spec", s) for s in ("13.2", "13.3", "13.4", "13.5", "13.6", "14.1", "14.2", "14.3")} <= sections
    assert ("profiles", "3.6") in sections


@pytest.mark.parametrize("argv, stdout, stderr, code", [
    pytest.param(*example, id=f"{document}-{section}-{' '.join(example[0][:3])}") for document, section, *example in _examples()])
def test_each_example_prints_what_the_spec_says(argv, stdout, stderr, code, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run_cli(*argv)
    assert (result.stdout, result.stderr, result.code) == (stdout, stderr, code)


@pytest.mark.parametrize("block, expected", [
    ("$ ome-asp explain -f x\nA\nB   # stderr\n", [(["explain", "-f", "x"], "A\n", "B\n", 0)]),
    ("$ ome-asp a\n# exit 1\n$ ome-asp b 'c d'\nout\n", [(["a"], "", "", 1), (["b", "c d"], "out\n", "", 0)]),
])
def test_a_console_block_is_read_as_section_0_4_says(block, expected):
    assert examples(block) == expected


def test_a_wrong_expectation_fails(monkeypatch):
    """The comparison is byte for byte: one space more in the spec's table is a failure."""
    monkeypatch.chdir(ROOT)
    argv, stdout, stderr, code = examples(
        "$ ome-asp explain --model llama-3-2-3b-instruct -n llama-demo -f fixtures/worked-example\n"
        "RUNTIME           SCOPE        COMPATIBLE   PRIORITY   WEIGHT   REASON \n")[0]
    assert run_cli(*argv).stdout != stdout


def test_written_out_manifests_are_their_files():
    text = SPEC.read_text(encoding="utf-8")
    written = re.findall(r"`(fixtures/[\w./-]+\.yaml)`:\n\n```yaml\n(.*?)^```$", text, re.M | re.S)
    assert written, "section 13.1 writes out fixtures/worked-example/manifests.yaml"
    for path, body in written:
        assert (ROOT / path).read_text(encoding="utf-8") == body, path


# --- the tables whose rows are conformance cases ------------------------------------------------

_ROWS = re.compile(r"\(`([a-z0-9-]*?)(\d+)[-…]*`\s+to\s+`\1(\d+)[-…]*`\s+in\s+(fixtures/cases/\w+)/\)")


def _rules_of(text: str, position: int) -> set[str]:
    """The rule a table belongs to: the paragraph's, or every rule of a
    closing "*Source for A1–A7:*" that comes after it."""
    heads = list(re.finditer(r"\*\*([A-Z])(\d+) — |\*Source for ([A-Z])(\d+)–[A-Z](\d+):\*", text[:position]))
    family, number, group, first, last = heads[-1].groups()
    return {f"{family}{number}"} if family else {f"{group}{n}" for n in range(int(first), int(last) + 1)}


def _table_rows_after(text: str, position: int) -> int:
    table = re.search(r"^\|.*?(?=\n\n|\Z)", text[position:], re.M | re.S).group(0)
    return len(table.splitlines()) - 2  # the header and the rule under it


def test_each_example_table_row_is_a_case_citing_the_rule():
    text = SPEC.read_text(encoding="utf-8")
    found = list(_ROWS.finditer(text))
    assert len(found) >= 9
    for match in found:
        prefix, first, last, folder = match.groups()
        rules = _rules_of(text, match.start())
        numbers = range(int(first), int(last) + 1)
        for number in numbers:
            name = re.compile(rf"{re.escape(prefix)}0*{number}(-|$)")
            cases = [d for d in (ROOT / folder).iterdir() if name.match(d.name)]
            assert cases, f"{sorted(rules)}: no case {prefix}{number} in {folder}"
            for case in cases:
                cited = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))["rules"]
                assert rules & set(cited), f"{case.name} cites none of {sorted(rules)}"
        assert _table_rows_after(text, match.end()) == len(numbers), f"{sorted(rules)}: rows and cases differ"


# --- what each row says against what its case expects ---------------------------------------

def _qualifies(expected: dict) -> bool:
    """Whether the table's runtime `rt` is in the ranking (the cases with a
    `fallback` runtime keep it qualifying, so the answer is never empty)."""
    return any(row["name"] == "rt" for row in expected["explain"]["ranking"])


def _rt(expected: dict) -> dict:
    (row,) = [row for row in expected["explain"]["ranking"] if row["name"] == "rt"]
    return row


def _row_says(prefix: str, cells: list[str], expected: dict) -> None:
    """The row's verdict or value, read from its cells, is its case's answer."""
    def word(cell: str) -> str:
        return re.match(r"\w+", cell).group(0).lower()

    if prefix == "q19-row-":  # Verdict: `Yes, score N` or `No (Qn)`
        score = re.match(r"Yes, score (\d+)", cells[5])
        assert _qualifies(expected) == bool(score)
        assert not score or _rt(expected)["score"] == int(score.group(1))
    elif prefix in ("v10-", "z3-", "a-table-", "d9-"):  # yes/no, pass/fail
        verdict = cells[3] if prefix == "v10-" else cells[-1]
        assert _qualifies(expected) == (word(verdict) in ("yes", "pass"))
    elif prefix == "z5-":  # Distance, in the manifests' units after its last `=`
        assert sizes.in_units(_rt(expected)["distance"]) == cells[-1].split("=")[-1].strip()
    elif prefix == "s3-":  # Entry score, after its last `=`: a score of 0 or less qualifies no runtime (Q8)
        score = int(re.match(r"-?\d+", cells[-1].split("=")[-1].strip()).group(0))
        assert (_rt(expected)["score"] if _qualifies(expected) else None) == (score if score > 0 else None)
    elif prefix == "w4-table-":  # Verdict: allow or deny, by the webhook
        (item,) = [item for item in expected["admit"]["items"] if item["name"] == "rt"]
        assert item["allowed"] == (word(cells[-1]) == "allow")
    elif prefix == "e9-table-":  # Score, PRIORITY, WEIGHT
        row = _rt(expected)
        assert [str(row["score"]), f"`{row['priority']}`", f"`{row['weight']}`"] == cells[1:4]
    else:
        raise AssertionError(f"no reader for the table of {prefix}: say here what its rows claim")


def test_each_example_table_row_says_what_its_case_expects():
    """A row's verdict or value (Match, Passes, Result, Distance, Entry
    score, Verdict, PRIORITY / WEIGHT) is what its conformance case expects,
    so a table can't say yes where the engine says no. Fails with a row's
    verdict turned around (v10's `yes` of row 1 read as `no`)."""
    text = SPEC.read_text(encoding="utf-8")
    for match in _ROWS.finditer(text):
        prefix, first, last, folder = match.groups()
        table = re.search(r"^\|.*?(?=\n\n|\Z)", text[match.end():], re.M | re.S).group(0).splitlines()[2:]
        for number, line in zip(range(int(first), int(last) + 1), table):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            name = re.compile(rf"{re.escape(prefix)}0*{number}(-|$)")
            for case in sorted(d for d in (ROOT / folder).iterdir() if name.match(d.name)):
                expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
                try:
                    _row_says(prefix, cells, expected)
                except AssertionError as error:
                    raise AssertionError(f"docs/spec.md's row {line!r} against {case.name}: {error}") from None
