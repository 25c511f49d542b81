"""The rule book: docs/spec.md's rules by id, and where each one lives.

docs/spec.md defines a rule by a paragraph starting `**Q5 — Title.**` (a
range, `**Q2–Q8 — …**`, defines each id in it). From the files of the tree
this module finds, for each id:

- its statement, as docs/spec.md writes it (`read_rules`);
- the encoding's anchors: the comments of encoding/**/*.lp that cite it, each
  with the statements right under its comment block (`encoding_anchors`);
- the Python that cites it in the layers that act for the rules (input,
  solver, render, commands: the loader, the fact builder, the Go sort, the
  messages and the table), by file and line (`python_citations`);
- what the profiles change, the rows of docs/profiles.md's sections 2 and 3.1
  that name it (`overrides`);
- the conformance cases whose case.yaml lists it, the smallest first
  (`cases_citing`).

scripts/rule_index.py writes docs/rule-index.md from these, and `ome-asp
rule ID` (commands/rule.py) prints them for one rule. A citation is an id
written as a word (`Q5`), or a range (`Q2–Q8`, `Q20-Q24`) of at most
WIDEST_RANGE ids; a wider one (`E1–E18`) names a family, not its rules.

docs/ and fixtures/cases/ are read from the source tree; a plain install has
them as the data packages ome_asp.docs and ome_asp.cases (pyproject.toml).
"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

WIDEST_RANGE = 10
#: The packages whose modules act for the rules; analysis/ and conformance/ use them.
ACTING = ("input", "solver", "render", "commands")

_DEFINED = re.compile(r"^(?:<a id=\"\w+\"></a>)*\*\*([A-Z])(\d+)(?:[–-]([A-Z]?)(\d+))? — (.*?)\*\*", re.M)
_CITED = re.compile(r"\b([A-Z])(\d+)(?:\s*[–-]\s*\1?(\d+))?\b")
_ANCHOR_TAG = re.compile(r"<a id=\"\w+\"></a>")
_HEADING = re.compile(r"^(#+) (.+)$", re.M)
_FENCED = re.compile(r"^```.*?^```$", re.M | re.S)

_SOURCE_TREE = Path(__file__).resolve().parents[2]


def data_dir(source: str, package: str) -> Path:
    """The source tree's folder `source` (`docs`, `fixtures/cases`); in a plain
    install, the data package `package` it is installed as."""
    folder = _SOURCE_TREE / source
    if folder.is_dir():
        return folder
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations is not None, f"{package} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def docs_dir() -> Path:
    return data_dir("docs", "ome_asp.docs")


def cases_dir() -> Path:
    return data_dir("fixtures/cases", "ome_asp.cases")


def _expand(family: str, first: str, last: str | None) -> list[str]:
    return [f"{family}{n}" for n in range(int(first), int(last or first) + 1)]


def cited(text: str, widest: int | None = WIDEST_RANGE) -> set[str]:
    """The rule ids `text` cites: ranges of at most `widest` ids expanded (every range with None)."""
    found: set[str] = set()
    for family, first, last in _CITED.findall(text):
        ids = _expand(family, first, last or None)
        if widest is None or len(ids) <= widest:
            found.update(ids)
    return found


# --- docs/spec.md ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    id: str
    title: str  # the bold title, without the id and the final full stop
    section: str  # the heading the rule is under, `3.1 The checks`
    text: str  # the rule as docs/spec.md writes it: its paragraph and what follows up to the next rule or heading


def read_rules(text: str) -> dict[str, Rule]:
    """Every rule docs/spec.md's `text` defines, in the order defined; a range's
    ids share one Rule."""
    found: dict[str, Rule] = {}
    # fenced blocks blanked (their `# exit 1` is no heading), offsets kept
    prose = _FENCED.sub(lambda block: re.sub(r"[^\n]", " ", block.group(0)), text)
    starts = [m.start() for m in _DEFINED.finditer(prose)] + [m.start() for m in _HEADING.finditer(prose)] + [len(text)]
    for match in _DEFINED.finditer(prose):
        family, first, _, last, title = match.groups()
        end = min(s for s in starts if s > match.start())
        headings = _HEADING.findall(prose, 0, match.start())
        body = _ANCHOR_TAG.sub("", text[match.start():end]).strip().removesuffix("---").rstrip()
        for rule_id in _expand(family, first, last or None):
            found[rule_id] = Rule(rule_id, title.rstrip(".").strip(), headings[-1][1] if headings else "", body)
    return found


def spec_rules() -> dict[str, Rule]:
    return read_rules((docs_dir() / "spec.md").read_text(encoding="utf-8"))


# --- encoding/*.lp --------------------------------------------------------------------------


@dataclass(frozen=True)
class Anchor:
    path: str  # relative to the encoding's folder: `qualification.lp`, `find/generate.lp`
    line: int  # the comment's line, 1-based
    comment: str  # the comment line citing the rule
    statements: tuple[tuple[int, str], ...]  # (line, text) of the code under the comment block; none under a banner


def _comment(line: str) -> str | None:
    """The comment of an encoding line (`%` to its end, outside strings), or None."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "%" and not quoted:
            return line[index:]
    return None


def file_anchors(path: str, text: str) -> dict[str, list[Anchor]]:
    """The anchors of one encoding file, by rule id."""
    lines = text.splitlines()
    found: dict[str, list[Anchor]] = {}
    for number, line in enumerate(lines, 1):
        comment = _comment(line)
        if comment is None:
            continue
        ids = cited(comment)
        if not ids:
            continue
        if line.lstrip().startswith("%"):  # a comment line: the code right under its block
            after = number
            while after < len(lines) and lines[after].lstrip().startswith("%"):
                after += 1
            statements = []
            while after < len(lines) and lines[after].strip() and not lines[after].lstrip().startswith("%"):
                statements.append((after + 1, lines[after]))
                after += 1
        else:  # a comment after code: that line
            statements = [(number, line)]
        anchor = Anchor(path, number, comment.strip(), tuple(statements))
        for rule_id in sorted(ids):
            found.setdefault(rule_id, []).append(anchor)
    return found


def encoding_anchors(directory: Path) -> dict[str, list[Anchor]]:
    """Every anchor of the encoding under `directory`, by rule id, in file and line order."""
    found: dict[str, list[Anchor]] = {}
    for path in sorted(directory.rglob("*.lp")):
        for rule_id, anchors in file_anchors(path.relative_to(directory).as_posix(), path.read_text(encoding="utf-8")).items():
            found.setdefault(rule_id, []).extend(anchors)
    return found


# --- the Python that acts for the rules ------------------------------------------------------


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line, text) of a Python module's comments and docstrings (a docstring
    by the line each of its lines is on)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found += [(first.lineno + offset, line) for offset, line in enumerate(first.value.value.splitlines())]
    found += [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(text).readline)
              if token.type == tokenize.COMMENT]
    return sorted(found)


def python_citations(package: Path, root: Path) -> dict[str, dict[str, list[int]]]:
    """For each rule id, the modules of ACTING under `package` that cite it in a
    comment or a docstring, each with the lines (paths relative to `root`)."""
    found: dict[str, dict[str, list[int]]] = {}
    for folder in ACTING:
        for path in sorted((package / folder).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            for number, line in prose_lines(path.read_text(encoding="utf-8")):
                for rule_id in cited(line):
                    lines = found.setdefault(rule_id, {}).setdefault(name, [])
                    if number not in lines:
                        lines.append(number)
    return found


# --- docs/profiles.md -----------------------------------------------------------------------


@dataclass(frozen=True)
class Override:
    profile: str
    section: str  # docs/profiles.md's heading: `2. Profile v1.2.2`, `3.1 Overrides by rule`
    text: str  # the table row, its cells joined by " | "


def overrides(text: str) -> dict[str, list[Override]]:
    """The rows of docs/profiles.md's per-profile tables (sections 2 and 3.1)
    by the rule ids in their first cell."""
    found: dict[str, list[Override]] = {}
    for title, profile in (("2. Profile v1.2.2", "v1.2.2"), ("3.1 Overrides by rule", "code-v0.1.5")):
        section = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ )", text, re.M | re.S)
        assert section, f"docs/profiles.md has no section {title!r}"
        for row in re.findall(r"^\| (.+) \|$", section.group(1), re.M)[1:]:  # after the header (the line under it has no spaces)
            first, *rest = row.split(" | ")
            for rule_id in sorted(cited(first), key=_order):
                found.setdefault(rule_id, []).append(Override(profile, title, " | ".join(rest)))
    return found


def profile_overrides() -> dict[str, list[Override]]:
    return overrides((docs_dir() / "profiles.md").read_text(encoding="utf-8"))


def _order(rule_id: str) -> tuple[str, int]:
    return rule_id[0], int(rule_id[1:])


# --- the rules the encoding does not implement ------------------------------------------------

#: The rules the encoding does not implement, and why: `python` (the loader, the
#: command line, the table: python_citations says where), `example` (a worked
#: example of other rules, checked by its conformance cases) or `nothing` (no
#: behaviour to implement). Every other rule has an anchor in the encoding.
ELSEWHERE = {
    "I1": "python", "I11": "python", "S8": "python", "X8": "python",
    "E1": "python", "E2": "python", "E3": "python", "E6": "python", "E8": "python",
    "E10": "python", "E11": "python", "E12": "python", "E13": "python",
    "Q19": "example", "V10": "example", "O7": "example",
    "O10": "nothing", "W6": "nothing", "E18": "nothing",
}
_WHY = {
    "python": "outside the encoding: the Python below",
    "example": "a worked example of other rules: its conformance cases run it",
    "nothing": "nothing to implement",
}
_NOTHING = {
    "O10": "no rule reads another runtime's spec: nothing is inherited",
    "W6": "the webhook's other checks are outside the specification",
    "E18": "explain writes nothing back",
}


def elsewhere(rule_id: str) -> str | None:
    """Why the encoding has no anchor for `rule_id`, or None when it should have one."""
    where = ELSEWHERE.get(rule_id)
    return None if where is None else _NOTHING.get(rule_id, _WHY[where])


# --- the conformance cases ------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    path: Path  # the case's folder
    rules: tuple[str, ...]
    profile: str
    objects: int  # the documents of its manifests
    size: int  # their bytes

    def key(self) -> tuple[bool, int, int, str]:
        """Smallest first: the default profile's cases, then fewer objects, fewer bytes, the name."""
        return self.profile != "v1.3", self.objects, self.size, self.path.as_posix()


def cases_citing(directory: Path) -> dict[str, list[Case]]:
    """The cases under `directory` by the rule ids their case.yaml lists, smallest first."""
    import yaml  # the cases' format

    found: dict[str, list[Case]] = {}
    for path in sorted(directory.rglob("case.yaml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        manifests = (path.parent / "manifests.yaml").read_text(encoding="utf-8")
        objects = sum(1 for document in re.split(r"^---[ \t]*$", manifests, flags=re.M) if document.strip())
        case = Case(path.parent, tuple(spec["rules"]), spec.get("profile", "v1.3"), objects, len(manifests.encode()))
        for rule_id in case.rules:
            found.setdefault(rule_id, []).append(case)
    for cases in found.values():
        cases.sort(key=Case.key)
    return found
