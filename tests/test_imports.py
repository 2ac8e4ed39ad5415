"""The shape of the imports (docs/design.md, Layers): no circle among the modules of
`service/`, and each layer imports only the layers below it. Every import counts,
those inside a function or under `TYPE_CHECKING` too."""

import ast
import graphlib
from pathlib import Path

ROOT = Path(__file__).parent.parent
# Each layer, and the packages it may import (besides itself and the standard library's):
# the settings and the processes' plumbing (`service.runtime`) are below every one of them
# but the pure domain and AI.
PLUMBING = {"service.config", "service.runtime"}
BELOW = {
    "service.domain": set(),
    "service.ai": {"service.domain"},
    "service.events": {"service.domain", *PLUMBING},
    "service.games": {"service.domain", "service.ai", "service.events", *PLUMBING},
    "service.api": {"service.domain", "service.events", "service.games", *PLUMBING},
    "workers": {"service.domain", "service.ai", "service.games", *PLUMBING},
}


def modules() -> dict[str, Path]:
    """Every module of `service` and `workers`, by its dotted name."""
    found = {}
    for package in ("service", "workers"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `from x import name`: the module x
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def test_no_module_of_the_service_imports_itself_in_a_circle():
    try:
        graphlib.TopologicalSorter(graph()).prepare()
    except graphlib.CycleError as error:
        raise AssertionError(f"an import circle: {' -> '.join(error.args[1])}") from None


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for name, targets in graph().items():
        layer = next((layer for layer in BELOW if f"{name}.".startswith(f"{layer}.")), None)
        if layer is None:
            continue
        for target in targets:
            if not any(
                f"{target}.".startswith(f"{allowed}.") for allowed in {layer, *BELOW[layer]}
            ):
                wrong.append(f"{name} imports {target}")
    assert not wrong, wrong
