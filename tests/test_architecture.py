"""The architecture's counts (issue 53's acceptance), measured on ``src/mctslab`` so that a
change which brings a habit back fails here, with the places named:

- callers drive the engine through the ``Searcher`` protocol: no module outside
  ``search/`` writes a searcher's or a player's config, or asks whether a searcher is an
  ``MCTS`` or a ``CompiledMCTS``;
- a search option is declared once: ``cutoff_depth`` (a typical option) is named in few
  source files;
- the web lab reads what games declare: no web module imports a game's module or names
  a game's class (the SGF download asks the game's declared record format);
- the two engines stand on the shared base alone: the compiled engine (``search/compiled``)
  imports no name from the reference engine (``search/mcts.py``, ``search/reference``).
- each subpackage's face (its ``__init__.py``'s ``__all__``) is curated: at most
  :data:`FACE_LIMIT` names, what a user of the package needs; layout constants, codes
  and helpers are imported from their defining module.

``python tests/test_architecture.py`` prints the counts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "mctslab"

_CONFIG_WRITE = re.compile(r"\b(?:searcher|player)\.config\s*=(?!=)")
_ENGINE_CHECK = re.compile(r"isinstance\([^)]*\b(?:MCTS|CompiledMCTS)\b")
_GAME_IMPORT = re.compile(r"^\s*(?:from mctslab\.games\b|import mctslab\.games\b)", re.M)


def _sources(*suffixes: str) -> list[Path]:
    return sorted(
        p for p in SRC.rglob("*") if p.suffix in suffixes and "__pycache__" not in p.parts
    )


def _where(pattern: re.Pattern[str], outside: str) -> list[str]:
    """``file:line`` of each match of ``pattern`` in a Python module not under ``outside``."""
    found = []
    for path in _sources(".py"):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(outside):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{number}")
    return found


def config_writes() -> list[str]:
    return _where(_CONFIG_WRITE, "search/")


def engine_class_checks() -> list[str]:
    return _where(_ENGINE_CHECK, "search/")


def files_naming(option: str) -> list[str]:
    return [
        p.relative_to(SRC).as_posix()
        for p in _sources(".py", ".js", ".html")
        if option in p.read_text()
    ]


def web_modules_importing_games() -> list[str]:
    return [
        p.relative_to(SRC).as_posix()
        for p in _sources(".py")
        if p.relative_to(SRC).parts[0] == "web" and _GAME_IMPORT.search(p.read_text())
    ]


_REFERENCE_ENGINE = ("mctslab.search.mcts", "mctslab.search.reference")


def reference_names(source: str) -> list[str]:
    """``module.name`` for each name ``source`` imports from the reference engine
    (``mcts.py`` or ``reference/``), function-level imports included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            pairs = [(node.module, f"{node.module}.{a.name}") for a in node.names]
            if node.module == "mctslab.search":  # ``from mctslab.search import mcts``
                pairs = [(name, name) for _, name in pairs]
        elif isinstance(node, ast.Import):
            pairs = [(a.name, a.name) for a in node.names]
        else:
            continue
        found += [
            name
            for module, name in pairs
            if any(module == r or module.startswith(r + ".") for r in _REFERENCE_ENGINE)
        ]
    return found


def reference_names_in_compiled() -> list[str]:
    """``file: module.name`` for each name a module of ``search/compiled`` imports from the
    reference engine."""
    return [
        f"{path.relative_to(SRC).as_posix()}: {name}"
        for path in sorted((SRC / "search" / "compiled").rglob("*.py"))
        for name in reference_names(path.read_text())
    ]


def game_classes() -> set[str]:
    """The names of the classes under ``games/`` that are games: those that define
    ``new_initial_state`` and the classes derived from them (``KernelGame``'s games)."""
    bases: dict[str, set[str]] = {}
    games: set[str] = set()
    for path in _sources(".py"):
        if path.relative_to(SRC).parts[0] != "games":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if any(
                    isinstance(f, ast.FunctionDef) and f.name == "new_initial_state"
                    for f in node.body
                ):
                    games.add(node.name)
    grown = True
    while grown:
        more = {name for name, of in bases.items() if of & games} - games
        games |= more
        grown = bool(more)
    return games


def web_modules_knowing_games() -> list[str]:
    """``file:line`` of each place in ``web/`` that imports a module of ``mctslab.games``
    or names a game's class (a string, such as a docstring's, does not count)."""
    classes = game_classes()
    found = []
    for path in _sources(".py"):
        rel = path.relative_to(SRC).as_posix()
        if not rel.startswith("web/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                modules = []
            imports = any(m == "mctslab.games" or m.startswith("mctslab.games.") for m in modules)
            named = (isinstance(node, ast.Name) and node.id in classes) or (
                isinstance(node, ast.Attribute) and node.attr in classes
            )
            if imports or named:
                found.append(f"{rel}:{node.lineno}")  # type: ignore[attr-defined]
    return found


def test_no_web_module_imports_a_game_or_names_its_class() -> None:
    # 1 before issue 53's item 5 was done: the SGF route imported Go; it asks the game's
    # declared record format now.
    assert web_modules_knowing_games() == []


def test_no_caller_outside_search_writes_a_searchers_config() -> None:
    assert config_writes() == []


def test_no_caller_outside_search_asks_which_engine_a_searcher_is() -> None:
    assert engine_class_checks() == []


def test_a_search_option_is_named_in_at_most_four_source_files() -> None:
    # Its declaration (search/config.py), the reference phase that reads it, the compiled
    # phase and the compiled Options field: the spec parser, the tuner, the web's request
    # model, the page and the command line read the declaration.
    assert files_naming("cutoff_depth") == [
        "search/compiled/options.py",
        "search/compiled/phases.py",
        "search/config.py",
        "search/reference/phases.py",
    ]


#: The most names a subpackage's face may hold (``mctslab/__init__.py``, the package's own
#: front door, is not a subpackage's: tests/test_init.py holds it to its 30 names).
FACE_LIMIT = 20

#: Faces that truly need more, each with its count as its limit (none today).
FACE_EXCEPTIONS: dict[str, int] = {}


def face_sizes() -> dict[str, int]:
    """The number of names in ``__all__`` of each subpackage's ``__init__.py`` (0 where it
    has none), by the package's path relative to ``src/mctslab``."""
    sizes = {}
    for path in _sources(".py"):
        if path.name != "__init__.py" or path.parent == SRC:
            continue
        names: list[str] = []
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = list(ast.literal_eval(node.value))
        sizes[path.parent.relative_to(SRC).as_posix()] = len(names)
    return sizes


def faces_over_the_limit() -> dict[str, int]:
    return {
        package: size
        for package, size in face_sizes().items()
        if size > FACE_EXCEPTIONS.get(package, FACE_LIMIT)
    }


def test_every_subpackage_face_holds_at_most_twenty_names() -> None:
    # 126 names in search/compiled's face before issue 53 (its numeric codes among
    # them), 93 in games/go's and 39 in games/tsp's.
    sizes = face_sizes()
    assert sizes["search/compiled"] > 0 and sizes["games/go"] > 0  # the walk reads them
    assert faces_over_the_limit() == {}


def puct_mode_tests() -> list[str]:
    return _where(re.compile(r"\bpuct is (?:not )?None\b"), "no such folder/")


def test_puct_is_asked_of_the_rules_registry_not_tested_as_a_mode() -> None:
    # A ratchet: 60 before issue 53; callers ask config.rule (evaluated, root_halving) and
    # take the parameters from rules.puct_config. The 4 left are SearchConfig's own: its
    # field checks and selection_rule, and rules.puct_config.
    assert len(puct_mode_tests()) <= 4, puct_mode_tests()


def test_the_compiled_engine_imports_no_name_of_the_reference_engine() -> None:
    # 12 before issue 53 (compiled/driver.py's 11 names from mcts.py, visit_lead among
    # them, and batch.py's SearchResult): each comes from the base module that defines it.
    assert reference_names_in_compiled() == []


def test_the_regexes_find_what_they_look_for() -> None:
    # Without this, a regex that matches nothing would pass the two tests above.
    assert _CONFIG_WRITE.search("    searcher.config = replace(config, time=1)")
    assert not _CONFIG_WRITE.search("    if searcher.config == other:")
    assert _ENGINE_CHECK.search("if isinstance(searcher, MCTS | CompiledMCTS):")
    assert not _ENGINE_CHECK.search("if isinstance(player, MCTSPlayer):")
    assert _GAME_IMPORT.search("from mctslab.games.go import Go\n")
    source = (
        "from mctslab.search.mcts import MCTS, SearchConfig\n"
        "from mctslab.search.config import SearchConfig\n"
        "from mctslab.search import mcts, parallel\n"
        "def f():\n    import mctslab.search.reference.tree\n"
    )
    assert reference_names(source) == [
        "mctslab.search.mcts.MCTS",
        "mctslab.search.mcts.SearchConfig",
        "mctslab.search.mcts",
        "mctslab.search.reference.tree",
    ]
    assert {"Go", "TicTacToe", "KuhnPoker", "TSP", "OpenSpielGame"} <= game_classes()
    assert "KernelState" not in game_classes()


if __name__ == "__main__":
    print("config writes outside search/:", len(config_writes()), config_writes())
    print("engine-class checks outside search/:", len(engine_class_checks()))
    named = files_naming("cutoff_depth")
    print("files naming cutoff_depth:", len(named), named)
    print("web modules importing games:", web_modules_importing_games())
    knowing = web_modules_knowing_games()
    print("web places importing a game or naming its class:", len(knowing), knowing)
    print("puct is (not) None tests:", len(puct_mode_tests()))
    names = reference_names_in_compiled()
    print("names compiled/ imports from mcts.py or reference/:", len(names), names)
    faces = sorted(face_sizes().items(), key=lambda item: (-item[1], item[0]))
    print(f"subpackage faces over {FACE_LIMIT} names:", faces_over_the_limit())
    print("subpackage face sizes:", ", ".join(f"{p} {n}" for p, n in faces))
