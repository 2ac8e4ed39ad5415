"""The client is the contract's: a call for every operation of openapi.yaml and none
more, its TypedDicts generated from the contract as it is, and nothing of the server in
it (installed alone in a fresh virtual environment, it works with httpx only)."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import venv

import yaml
from claim_client import Client

from tests.client.conftest import CLIENT, ROOT

METHODS = ("get", "post", "put", "patch", "delete")


def contract_operations() -> set[tuple[str, str]]:
    paths = yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"]
    return {
        (method.upper(), path)
        for path, item in paths.items()
        for method in item
        if method in METHODS
    }


def client_operations() -> dict[tuple[str, str], str]:
    calls = {}
    for name in dir(Client):
        marked = getattr(getattr(Client, name), "operation", None)
        if marked is not None:
            assert marked not in calls, f"{marked} has two calls: {calls[marked]} and {name}"
            calls[marked] = name
    return calls


def test_every_operation_of_the_contract_has_a_call_and_every_call_an_operation():
    calls = client_operations()
    assert sorted(contract_operations() - calls.keys()) == [], "operations without a call"
    assert sorted(calls.keys() - contract_operations()) == [], "calls of no operation"


def test_the_typed_dicts_are_those_the_contract_generates():
    spec = importlib.util.spec_from_file_location(
        "generate_schemas", CLIENT / "generate_schemas.py"
    )
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    contract = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    committed = (CLIENT / "claim_client" / "schemas.py").read_text()
    assert committed == generator.generate(contract), (
        "client/claim_client/schemas.py is stale: run .venv/bin/python client/generate_schemas.py"
    )


def test_the_client_imports_the_standard_library_httpx_and_itself_only():
    imported = set()
    for module in (CLIENT / "claim_client").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"httpx"}


def test_pip_installs_the_client_alone_and_it_works_without_the_server(tmp_path):
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(CLIENT)], capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    script = (
        "import sys, claim_client\n"
        "assert 'service' not in sys.modules and 'flask' not in sys.modules\n"
        "print(claim_client.Client('http://127.0.0.1:1').url)\n"
    )
    ran = subprocess.run([python, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "http://127.0.0.1:1"
    listed = subprocess.run([python, "-m", "pip", "list"], capture_output=True, text=True).stdout
    assert "claim-client" in listed and "flask" not in listed.lower()
