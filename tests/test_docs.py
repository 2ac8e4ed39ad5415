"""The README and the pages of docs/ hold together: the README stays a front door, every
link and every path they name leads somewhere, and every setting is documented once."""

import re
from pathlib import Path

from service.config import ENVIRONMENT

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target)
PATH = re.compile(r"`((?:bin|bench|client|deploy|docs|examples|service|tests|workers)/[\w./-]*)`")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_the_readme_is_a_front_door_of_at_most_250_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_every_link_of_the_readme_and_the_docs_resolves():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # another site's address
            path, _, anchor = target.partition("#")
            found = (page.parent / path).resolve() if path else page
            if not found.exists() or (anchor and anchor not in anchors(found)):
                broken.append(f"{page.name}: {target}")
    assert not broken, broken


def test_every_path_the_readme_and_the_docs_name_exists():
    missing = [
        f"{page.name}: {path}"
        for page in PAGES
        for path in PATH.findall(page.read_text())
        if not (ROOT / path.rstrip("/.")).exists()
    ]
    assert not missing, missing


def test_every_setting_has_one_row_in_the_operators_settings_table():
    text = "\n".join(page.read_text() for page in PAGES if page.name != "deployment.md")
    rows = {variable: text.count(f"| `{variable}` |") for variable in ENVIRONMENT.values()}
    assert {variable: n for variable, n in rows.items() if n != 1} == {}
    operators = (ROOT / "docs" / "operators.md").read_text()
    assert all(f"| `{variable}` |" in operators for variable in ENVIRONMENT.values())
