"""The README says what the repository holds: its benchmark figures are what bench/results/ says (each block is
made by bench/readme_tables.py from the results files), its "What is where" table names every file and only files
that exist, and its commands name modules that exist."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from bench import readme_tables

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / 'README.md').read_text()
DESCRIBED_AS_A_WHOLE = {'tests/', 'bench/results/'}  # rows that need not name each file in them
NOT_LISTED = {'README.md', '.gitignore', '.dockerignore'}


@pytest.mark.parametrize('name', readme_tables.BLOCKS)
def test_the_readmes_figures_are_what_the_results_files_say(name):
    assert readme_tables.shown(README, name) == readme_tables.made([name])[name], (
        f'README.md block {name!r} is not what bench/results/ says: run python -m bench.readme_tables'
    )


def what_is_where():
    """[(paths in the first column, the row's whole text)] of the README's table."""
    section = README.split('## What is where', 1)[1].split('\n## ', 1)[0]
    rows = [line for line in section.splitlines() if line.startswith('| `')]
    return [(re.findall(r'`([^`]+)`', row.split(' | ', 1)[0]), row) for row in rows]


def tree():
    """The repository's files: committed or about to be, that exist."""
    listed = subprocess.run(
        ['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(path for path in set(listed) if (ROOT / path).is_file())


def test_what_is_where_names_only_paths_that_exist():
    paths = [path for paths, _ in what_is_where() for path in paths]
    assert paths and len(paths) == len(set(paths))
    assert [path for path in paths if not (ROOT / path).exists()] == []


def test_what_is_where_names_every_file():
    rows = what_is_where()
    named = {path for paths, _ in rows for path in paths}
    folders = {path: row for paths, row in rows for path in paths if path.endswith('/')}

    def covered(path):
        if path in named:
            return True
        within = [folder for folder in folders if path.startswith(folder)]
        if not within:
            return False
        folder = max(within, key=len)  # the deepest: components/player/ for player.js
        return folder in DESCRIBED_AS_A_WHOLE or f'`{Path(path).name}`' in folders[folder]

    skipped = [
        path
        for path in tree()
        if path not in NOT_LISTED
        and Path(path).name != '__init__.py'
        and not (path.startswith('docs/') and path.endswith(('.png', '.gif')))
    ]
    assert [path for path in skipped if not covered(path)] == []


def test_the_commands_name_modules_that_exist_and_no_script_path_that_now_fails():
    """Benchmarks and screenshots run as modules (they import the page and devtools without sys.path edits)."""
    texts = [README] + [path.read_text() for path in [*ROOT.glob('bench/*.py'), ROOT / 'docs' / 'screenshots.py']]
    modules = {m for text in texts for m in re.findall(r'python -m ((?:bench|docs)\.\w+)', text)}
    assert {'bench.bench_engine', 'bench.bench_page', 'bench.bench_load', 'bench.screenshots'} <= modules
    assert [m for m in modules if not (ROOT / (m.replace('.', '/') + '.py')).is_file()] == []
    assert [t for text in texts for t in re.findall(r'python3? (?:bench|docs)/\w+\.py', text)] == []


def test_a_benchmark_written_elsewhere_leaves_the_results_and_the_readme_alone(tmp_path, monkeypatch):
    written = []
    monkeypatch.setattr(readme_tables, 'update', lambda *stems: written.append(stems))
    readme_tables.write_results('load', 'a table', {'p95_s': 0.5}, out=str(tmp_path / 'load'))
    assert (tmp_path / 'load.txt').read_text() == 'a table\n'
    assert json.loads((tmp_path / 'load.json').read_text()) == {'p95_s': 0.5}
    assert written == []  # the README's figures come from bench/results/ alone
