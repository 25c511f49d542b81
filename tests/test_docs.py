"""The documentation names what the tree has (issue 23).

Every name of the package's code that the prose mentions must exist, so a
rename or a move that forgets the docs fails here. The prose read: the
Markdown of docs/, README.md and encoding/README.md; the comments of
encoding/**/*.lp; the docstrings and comments of ome_asp/, benchmarks/, tools/,
scripts/ and tests/. The references recognised, and how each resolves (by
reading the files and their syntax trees, never by importing them):

- a repository path, `ome_asp/solver/facts.py`, `encoding/find/generate.lp`,
  `docs/find.md` (a folder of FOLDERS, a file extension): the file exists;
  `ome_asp/solver/facts.py:quoted` also defines `quoted`; a path below a
  folder of the package or of encoding/ (`solver/facts.py`,
  `find/generate.lp`): the file exists there;
- a dotted module path, `ome_asp.solver.worlds` or
  `ome_asp.solver.facts.quoted`: the module exists and defines the rest;
- `module.name` with `module` the last part of a module of ome_asp
  (`ask.solve`, `pinned.COLLAPSED`, `solver.gosort`): that module
  defines `name` itself (an imported name does not count: the prose says
  where it lives); `Class.name` with `Class` a class of ome_asp
  (`Facts.numbers`): the class defines `name`;
- in backquotes, `lower.snake_name` whose first part is neither a module of
  ome_asp nor an outside module the prose quotes (OUTSIDE: `clingo.String`,
  `os.sched_getaffinity`, ...): an error, since a moved module's old name
  (`collector.gc_paused`) looks exactly like that (without an underscore,
  `lower.name` is too often a YAML path such as `workers.size`);
- a bare file name `facts.py` or `winner.lp`: a file of that name exists in
  the package, encoding/, benchmarks/, scripts/, tests/ or examples/ (the
  reader's own files in examples, such as `only-q4.lp`, are USER_FILES).

Names in capitals or of one letter are placeholders, not references
(`encoding/X.lp`, `find/properties/NAME.lp`, `a.b`, `ome_asp.x`).

docs/decisions.md is also checked for its shape: each decision a heading
`### D-n — …` (or `### OQ-n — …`, the decisions that came with the rules)
followed by a status line and at most about ten lines, every `D-n` and `OQ-n`
cited in the repository defined there, every superseding decision too.
"""

import ast
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ome_asp"
FOLDERS = ("ome_asp", "encoding", "benchmarks", "scripts", "tests", "tools", "docs", "fixtures", "examples")
EXTENSIONS = ("py", "lp", "md", "json", "yaml", "yml", "png", "toml", "txt", "sh", "go")
#: First parts of dotted names that are not ome-asp's: the libraries, the
#: standard modules and the Go and Kubernetes identifiers the prose quotes.
OUTSIDE = {
    "clingo", "os", "sys", "json", "yaml", "re", "math", "gc", "io", "time", "signal", "subprocess",
    "multiprocessing", "dataclasses", "fractions", "functools", "itertools", "typing", "argparse",
    "pytest", "hypothesis", "packaging", "importlib", "inspect", "contextlib", "tempfile", "shutil",
    "pathlib", "collections", "enum", "textwrap", "unicodedata", "string", "struct", "select",
    "selectors", "threading", "concurrent", "traceback", "random", "statistics", "resource",
    "cffi", "matplotlib", "jsonschema", "tokenize", "ast", "strings", "sort", "metav1", "filepath", "configuration", "problem", "sigs", "serving", "ome", "spec", "metadata", "status",
    "kubectl", "python", "pip", "pdqsort", "clasp", "np", "go", "self", "cls", "args",
}
#: File names the docs use for files of the reader's, not of the repository.
USER_FILES = {"facts.lp", "only-q4.lp", "my-condition.lp", "no-sizes.lp"}

_PATH = re.compile(rf"\b(?:{'|'.join(FOLDERS)})/[\w./-]*?\.(?:{'|'.join(EXTENSIONS)})\b(?::[A-Za-z_]\w*)?")
#: A path below a folder of the package or of encoding/ (`solver/facts.py`, `find/generate.lp`).
_PARTIAL = re.compile(r"(?<![\w/.-])(?:[a-z]+/)+[\w-]+\.(?:py|lp)\b")
_DOTTED = re.compile(r"(?<![\w./-])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w/-]|\.\w)")
_BARE_FILE = re.compile(r"(?<![\w./-])[\w-]+\.(?:py|lp)\b(?![/-]|\.\w)")
_PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z]+\.\w+$|/[A-Z]+(?:/|\.)")  # encoding/X.lp, find/properties/NAME.lp
_BACKQUOTED = re.compile(r"`([^`\n]+)`")


# --- the prose ----------------------------------------------------------------------------


def _python_prose(path: Path) -> list[str]:
    """The docstrings and comments of one Python file."""
    text = path.read_text(encoding="utf-8")
    pieces = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                pieces.append(doc)
    with path.open(encoding="utf-8") as handle:
        pieces += [tok.string for tok in tokenize.generate_tokens(handle.readline) if tok.type == tokenize.COMMENT]
    return pieces


def _lp_prose(path: Path) -> list[str]:
    """The comments of one encoding file (`%` to the end of a line, `%* … *%` blocks)."""
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"%\*.*?\*%", text, re.S)
    text = re.sub(r"%\*.*?\*%", "", text, flags=re.S)
    return blocks + [line[line.index("%"):] for line in text.splitlines() if "%" in line]


def prose() -> dict[Path, str]:
    """Every piece of prose read, by file."""
    found = {path: path.read_text(encoding="utf-8")
             for path in [ROOT / "README.md", ROOT / "encoding" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
    for path in sorted((ROOT / "encoding").rglob("*.lp")):
        found[path] = "\n".join(_lp_prose(path))
    for folder in ("ome_asp", "benchmarks", "scripts", "tests", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != Path(__file__).resolve():  # its docstring shows stale names on purpose
                found[path] = "\n".join(_python_prose(path))
    return found


# --- what the tree defines ----------------------------------------------------------------


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defined(body: list) -> set[str]:
    """The names a module's or a class's body defines (not those it imports)."""
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.If, ast.Try)):
            names |= _defined(node.body) | _defined(getattr(node, "orelse", []))
    return names


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their __init__.py)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def classes() -> dict[str, list[ast.ClassDef]]:
    """Every class of the package by name."""
    found: dict[str, list[ast.ClassDef]] = {}
    for path in modules().values():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _has(path: Path, names: list[str]) -> bool:
    """Whether the module at `path` defines names[0], and its class names[0] names[1], ..."""
    body = _tree(path).body
    for name in names:
        if name not in _defined(body):
            return False
        inner = [node for node in body if isinstance(node, ast.ClassDef) and node.name == name]
        if not inner:
            return name == names[-1]  # a function's or a value's attributes are not followed
        body = inner[0].body
    return True


def _module_name(dotted: str) -> str | None:
    """The error in a dotted path starting with ome_asp (None if it resolves)."""
    parts = dotted.split(".")
    if parts[:2] in (["ome_asp", "encoding"], ["ome_asp", "docs"], ["ome_asp", "cases"]):  # data packages (pyproject.toml)
        return None if len(parts) == 2 else f"{dotted}: {'.'.join(parts[:2])} is a folder of data"
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module in modules():
            rest = parts[cut:]
            return None if not rest or _has(modules()[module], rest) else f"{module} defines no {'.'.join(rest)}"
    return f"no module {dotted}"


@cache
def short_modules() -> set[str]:
    """The last parts of the package's module names (`engine`, `solver`, ...)."""
    return {name.rsplit(".", 1)[-1] for name in modules()}


@cache
def files_named() -> set[str]:
    """The names of the files a bare `x.py` or `x.lp` may mean."""
    names = set()
    for folder in ("ome_asp", "encoding", "benchmarks", "scripts", "tests", "tools", "examples"):
        names |= {path.name for path in (ROOT / folder).rglob("*") if path.suffix in (".py", ".lp")}
    return names


# --- the references -----------------------------------------------------------------------


def _short(first: str, rest: list[str]) -> str | None:
    """The error in `module.name` where `module` is the last part of a module's name
    (`ask.solve`, `commands.options.load_cluster`; None if it resolves)."""
    errors = [_module_name(".".join([module, *rest])) for module in modules() if module.rsplit(".", 1)[-1] == first]
    return None if None in errors else f"{first} defines no {'.'.join(rest)}"


def _reference(dotted: str, quoted: bool) -> str | None:
    """The error in one dotted name (None if it resolves or is not ome-asp's)."""
    first, *rest = dotted.split(".")
    if rest[-1] in EXTENSIONS or any(len(part) == 1 for part in (first, *rest)):
        return None  # a file name, or an example such as `a.b` or `ome_asp.x`
    if first == "ome_asp":
        return _module_name(dotted)
    if first in short_modules():
        return _short(first, rest)
    if first in classes():
        members = set().union(*(_defined(node.body) for node in classes()[first]))
        return None if rest[0] in members else f"class {first} defines no {rest[0]}"
    if quoted and first.islower() and first not in OUTSIDE and len(rest) == 1 and "_" in rest[0]:
        return f"{first} is no module of ome_asp"
    return None


def problems(text: str) -> list[str]:
    """The references in `text` the tree does not have, each with why."""
    found = []
    for match in _PATH.finditer(text):
        path, _, name = match.group(0).partition(":")
        if _PLACEHOLDER.search(path):
            continue
        if not (ROOT / path).exists():
            found.append(f"{match.group(0)}: no such file")
        elif name and path.endswith(".py") and not _has(ROOT / path, [name]):
            found.append(f"{match.group(0)}: {path} defines no {name}")
    text = _PATH.sub(" ", text)
    for match in _PARTIAL.finditer(text):
        path = match.group(0)
        if not _PLACEHOLDER.search(path) and not any((folder / path).exists() for folder in (PACKAGE, ROOT / "encoding", ROOT)):
            found.append(f"{path}: no such file in ome_asp/ or encoding/")
    text = _PARTIAL.sub(" ", text)
    quoted = set(_BACKQUOTED.findall(text))
    for match in _DOTTED.finditer(text):
        error = _reference(match.group(0), match.group(0) in quoted)
        if error:
            found.append(f"{match.group(0)}: {error}")
    for match in _BARE_FILE.finditer(text):
        name = match.group(0)
        if name not in files_named() and name not in USER_FILES and not _PLACEHOLDER.search(name):
            found.append(f"{name}: no file of that name")
    return found


def test_every_name_the_prose_gives_exists():
    stale = [f"{path.relative_to(ROOT)}: {problem}" for path, text in prose().items() for problem in problems(text)]
    assert not stale, "names the tree does not have (tests/test_docs.py says what is read):\n" + "\n".join(stale)


@pytest.mark.parametrize("text, problem", [
    ("`ask.solve`", None),
    ("`engine.no_such_function`", "engine.no_such_function: engine defines no no_such_function"),
    ("`collector.gc_paused`", "collector.gc_paused: collector is no module of ome_asp"),
    ("see ome_asp/solver/facts.py", None),
    ("see ome_asp/facts.py", "ome_asp/facts.py: no such file"),
    ("ome_asp.solver.worlds", None),
    ("python -m ome_asp.worlds", "ome_asp.worlds: ome_asp defines no worlds"),
    ("`engine.decode` orders the rows", "engine.decode: engine defines no decode"),
    ("(`engine._texts`)", "engine._texts: engine defines no _texts"),
    ("`answer.decode`, `timing.gc_paused`", None),
    ("ome_asp/solver/facts.py:quoted", None),
    ("solver/facts.py and find/generate.lp", None),
    ("solver/ranking.py", "solver/ranking.py: no such file in ome_asp/ or encoding/"),
    ("ome_asp/solver/facts.py:unquoted", "ome_asp/solver/facts.py:unquoted: ome_asp/solver/facts.py defines no unquoted"),
    ("`Facts.numbers`", None),
    ("`Facts.nothing`", "Facts.nothing: class Facts defines no nothing"),
    ("winner.lp's rule", None),
    ("loser.lp's rule", "loser.lp: no file of that name"),
])
def test_a_stale_name_is_found(text, problem):
    """The test above would fail on each of these (issue 23's stale names among them)."""
    assert problems(text) == ([problem] if problem else [])


# --- docs/design.md's pictures ----------------------------------------------------------

DESIGN = ROOT / "docs" / "design.md"


def _picture(title: str) -> str:
    """The first code block of design.md's section `title`."""
    section = re.search(rf"^##+ {re.escape(title)}\n(.*?)(?=^## |\Z)", DESIGN.read_text(encoding="utf-8"), re.M | re.S)
    assert section, f"docs/design.md has no section {title!r}"
    return re.search(r"^```\n(.*?)^```", section.group(1), re.M | re.S).group(1)


def test_the_layer_picture_shows_every_module():
    """A module of the package missing from docs/design.md's picture of the
    layers fails, so a new module is placed in the picture when it is made:
    a module of a folder is named in a layer that names the folder
    (`solver/ … exhaustive`), a top-level module anywhere."""
    layers = re.split(r"\n(?= \S)", _picture("Layers"))
    missing = []
    for name in sorted(modules()):
        *package, last = name.split(".")[1:] or [""]
        places = [layer for layer in layers if not package or f"{package[-1]}/" in layer]
        if name != "ome_asp" and not any(last in re.findall(r"\w+", layer) for layer in places):
            missing.append(name)
    assert not missing, f"docs/design.md's layer picture leaves out {missing}"


def test_the_variant_picture_shows_every_program_variant():
    programs = _tree(PACKAGE / "solver" / "programs.py")
    variant = next(node for node in programs.body if isinstance(node, ast.ClassDef) and node.name == "Variant")
    members = [t.id for node in variant.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)]
    picture = set(re.findall(r"\w+", _picture("Program variants")))
    assert members and not [member for member in members if member not in picture]


# --- docs/decisions.md --------------------------------------------------------------------

DECISIONS = ROOT / "docs" / "decisions.md"
_HEADING = re.compile(r"^### ((?:D|OQ)-\d+) — \S", re.M)  # OQ-n: the decisions that came with the rules
_STATUS = re.compile(r"Status: (in force|superseded by D-\d+)\b")
_CITED = re.compile(r"\b((?:D|OQ)-\d+)\b")


def decisions(text: str) -> dict[str, list[str]]:
    """Each decision's lines after its heading, up to the next heading."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            assert heading.group(1) not in found, f"{heading.group(1)} is defined twice"
            current = found.setdefault(heading.group(1), [])
        elif line.startswith("#"):
            current = None
        elif current is not None and line.strip():
            current.append(line)
    return found


def shape_problems(text: str) -> list[str]:
    """How decisions.md's `text` departs from the shape its introduction states."""
    found = [f"{bold}: a decision is a heading '### D-n — title (rules)' (see the top of decisions.md)"
             for bold in re.findall(r"^\*\*(D-\d+)", text, re.M)]
    for name, lines in decisions(text).items():
        if not lines or not _STATUS.match(lines[0]):
            found.append(f"{name}: the line after the heading is 'Status: in force.' or 'Status: superseded by D-n.'")
        elif len(lines) > 12:
            found.append(f"{name}: {len(lines) - 1} lines; measurements go to docs/performance.md or docs/find.md")
    return found


def test_the_topic_table_lists_each_section_s_decisions():
    """The table at the top of decisions.md is its index: each topic's row
    names exactly the decisions under that section's heading."""
    text = DECISIONS.read_text(encoding="utf-8")
    rows = {topic: re.findall(r"(?:D|OQ)-\d+", names) for topic, names in re.findall(r"^\| \[([^]]+)\]\(#[\w-]+\) \|(.*)\|$", text, re.M)}
    sections = {title: _HEADING.findall(body) for title, body in re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.M | re.S)}
    assert rows == sections


def test_each_decision_has_a_status_and_at_most_about_ten_lines():
    assert shape_problems(DECISIONS.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("text, problem", [
    ("### D-1 — a (Q1)\nStatus: in force.\nWhy.\n", None),
    ("**D-1 — a (Q1).** Why.\n", "D-1: a decision is a heading '### D-n — title (rules)' (see the top of decisions.md)"),
    ("### D-1 — a (Q1)\nWhy.\n", "D-1: the line after the heading is 'Status: in force.' or 'Status: superseded by D-n.'"),
    ("### D-1 — a (Q1)\nStatus: superseded by D-2.\n" + "Why.\n" * 12,
     "D-1: 12 lines; measurements go to docs/performance.md or docs/find.md"),
])
def test_a_decision_out_of_shape_is_found(text, problem):
    assert shape_problems(text) == ([problem] if problem else [])


def test_every_cited_decision_exists():
    defined = decisions(DECISIONS.read_text(encoding="utf-8"))
    cited = {}
    for path, text in prose().items():
        for name in _CITED.findall(text if path.suffix != ".py" else path.read_text(encoding="utf-8")):
            cited.setdefault(name, path.relative_to(ROOT))
    missing = {name: str(path) for name, path in cited.items() if name not in defined}
    assert not missing, f"decisions cited but not in docs/decisions.md: {missing}"


# --- links, and nothing outside the repository (issue 35) ---------------------------------

MARKDOWN = [ROOT / "README.md", ROOT / "encoding" / "README.md", ROOT / "fixtures" / "cases" / "README.md",
            *sorted((ROOT / "docs").glob("*.md"))]
_FENCED = re.compile(r"^```.*?^```", re.M | re.S)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file: its headings' and its `<a id="…">` tags'."""
    text = path.read_text(encoding="utf-8")
    found, seen = set(re.findall(r'<a id="([^"]+)"></a>', text)), {}
    for heading in re.findall(r"^#+ (.+)$", _FENCED.sub("", text), re.M):
        slug = github_slug(heading)
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def broken_links(path: Path, text: str) -> list[str]:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _FENCED.sub("", text)):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        destination = (path.parent / file).resolve() if file else path
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no such anchor")
    return broken


def test_every_link_of_the_docs_resolves():
    """A link to a file or a heading that is not there fails (spec.md's
    cross-links, profiles.md's sections that code cites by number)."""
    broken = [f"{path.relative_to(ROOT)}: {link}" for path in MARKDOWN
              for link in broken_links(path, path.read_text(encoding="utf-8"))]
    assert not broken, broken


def test_a_broken_link_is_found():
    path = ROOT / "docs" / "spec.md"
    assert broken_links(path, "[Q5](#q5) [s](profiles.md#3-profile-code-v015) [x](#nowhere) [y](gone.md)") == [
        "#nowhere: no such anchor", "gone.md: no such file"]


#: What would point outside the repository: the reference material beside it, or a machine's paths.
OUTSIDE_PATHS = re.compile("|".join(re.escape(p) for p in (".." + "/shared", "shared" + "/reference", "/" + "work/")))


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode != 0:  # not a git checkout: the folders of the tree
        return [p for folder in FOLDERS for p in (ROOT / folder).rglob("*") if p.is_file()]
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_nothing_reads_or_cites_a_path_outside_the_repository():
    """A clone with nothing beside it works and reads whole (issue 35): no file
    names the reference material that was beside the repository, or a path of
    the machine it was written on."""
    found = []
    for path in tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        found += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
                  for m in OUTSIDE_PATHS.finditer(text)]
    assert not found, found
