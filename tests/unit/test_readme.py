"""The README fits a screen or two and points into docs/; the docs say what the repository holds: their benchmark
figures are what bench/results/ says (each block is made by bench/readme_tables.py from the results files), the
README's folder map names every top-level folder and only folders that exist, the README links every page of docs/
and only pages that exist, and the commands anywhere name modules that exist. The lists come from the tree: no file
need be named by hand."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from bench import readme_tables

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / 'README.md').read_text()
MOST_LINES = 120  # a screen or two


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


def docs():
    return sorted(f'docs/{page.name}' for page in (ROOT / 'docs').glob('*.md'))


@pytest.mark.parametrize('name', readme_tables.BLOCKS)
def test_the_docs_figures_are_what_the_results_files_say(name):
    page = readme_tables.home(name)  # exactly one page holds the block
    assert readme_tables.shown(page.read_text(), name) == readme_tables.made([name])[name], (
        f'{page.relative_to(ROOT)} block {name!r} is not what bench/results/ says: run python -m bench.readme_tables'
    )


def test_the_readme_holds_no_figures_of_its_own():
    assert '<!-- bench:' not in README  # the figures live in docs/, where the README links


def test_the_readme_fits_a_screen_or_two():
    assert len(README.splitlines()) <= MOST_LINES


def folder_map():
    """The folders the first column of the README's *What is where* table names (`engine/`)."""
    section = README.split('## What is where', 1)[1].split('\n## ', 1)[0]
    firsts = [line.split('|')[1] for line in section.splitlines() if line.startswith('| `')]
    return {name.rstrip('/') for first in firsts for name in re.findall(r'`([^`\s]+/)`', first)}


def test_the_folder_map_names_every_top_level_folder_and_only_folders_that_exist():
    named = folder_map()
    top = {path.split('/')[0] for path in tree() if '/' in path and not path.startswith('.')}
    assert top and sorted(top - named) == []
    assert sorted(name for name in named if not (ROOT / name).is_dir()) == []


def test_the_readme_links_every_page_of_docs_and_only_pages_that_exist():
    linked = set(re.findall(r'\]\((docs/[\w.-]+\.md)(?:#[\w-]*)?\)', README))
    assert sorted(set(docs()) - linked) == []
    assert sorted(page for page in linked if not (ROOT / page).is_file()) == []


def anchors(text):
    """GitHub's anchors for a page's headings."""
    heads = re.findall(r'^#{1,6} (.+)$', text, flags=re.M)
    return {re.sub(r'[^\w\- ]', '', head.lower()).replace(' ', '-') for head in heads}


def test_every_link_into_a_page_of_docs_lands_on_a_heading_that_is_there():
    texts = {'README.md': README} | {page: (ROOT / page).read_text() for page in docs()}
    wrong = []
    for name, text in texts.items():
        here = (ROOT / name).parent
        for target, anchor in re.findall(r'\]\(([\w./-]*\.md|)#([\w-]+)\)', text):
            page = (here / target).resolve() if target else ROOT / name
            if not page.is_file() or anchor not in anchors(page.read_text()):
                wrong.append(f'{name}: {target}#{anchor}')
    assert wrong == []


def test_the_commands_name_modules_that_exist_and_no_script_path_that_now_fails():
    """Benchmarks and screenshots run as modules (they import the page and tests.support without sys.path edits)."""
    paths = [*ROOT.glob('docs/*.md'), *ROOT.glob('bench/*.py'), *ROOT.glob('scripts/*.py')]
    texts = [README] + [path.read_text() for path in paths]
    modules = {m for text in texts for m in re.findall(r'python -m ((?:bench|docs|scripts)\.\w+)', text)}
    assert {'bench.bench_page', 'bench.bench_load', 'scripts.screenshots'} <= modules
    assert [m for m in modules if not (ROOT / (m.replace('.', '/') + '.py')).is_file()] == []
    benchmarks = {path for text in texts for path in re.findall(r'pytest (bench/\w+\.py)', text)}
    assert 'bench/test_engine_speed.py' in benchmarks
    assert [path for path in benchmarks if not (ROOT / path).is_file()] == []
    assert [t for text in texts for t in re.findall(r'python3? (?:bench|docs|scripts)/\w+\.py', text)] == []


def test_the_test_commands_name_folders_that_exist():
    commands = re.findall(r'pytest ((?:tests/\w+ ?)+)', README)
    folders = {folder for command in commands for folder in command.split()}
    assert {'tests/unit', 'tests/app'} <= folders
    assert sorted(folder for folder in folders if not (ROOT / folder).is_dir()) == []


def test_a_benchmark_written_elsewhere_leaves_the_results_and_the_docs_alone(tmp_path, monkeypatch):
    written = []
    monkeypatch.setattr(readme_tables, 'update', lambda *stems: written.append(stems))
    readme_tables.write_results('load', 'a table', {'p95_s': 0.5}, out=str(tmp_path / 'load'))
    assert (tmp_path / 'load.txt').read_text() == 'a table\n'
    assert json.loads((tmp_path / 'load.json').read_text()) == {'p95_s': 0.5}
    assert written == []  # the docs' figures come from bench/results/ alone


def sections(text):
    """{folder: its paragraph and list} of docs/architecture.md's "What is where", each opening with `folder/`."""
    parts = re.split(r'^`([a-z]+)/`', text.split('## What is where', 1)[1], flags=re.M)
    return {folder: body for folder, body in zip(parts[1::2], parts[2::2])}


def test_the_architecture_page_names_every_module_and_script_where_it_lives():
    """docs/architecture.md's "What is where" says what each module of the page and of the lab is for, in its folder's
    part: a module added without a line there fails here, named."""
    parts = sections((ROOT / 'docs' / 'architecture.md').read_text())
    folders = ('engine', 'view', 'components', 'exports', 'server', 'bench', 'scripts')
    assert set(folders) <= set(parts)
    files = [p for p in tree() if p.split('/')[0] in folders and p.endswith(('.py', '.sh', '.mjs', '.js', '.css'))]
    missing = [p for p in files if Path(p).name != '__init__.py' and f'`{Path(p).name}`' not in parts[p.split('/')[0]]]
    assert files and missing == []
