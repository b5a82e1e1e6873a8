"""The layers stay apart: the engine, the view and the exports are pure Python, with no Streamlit in them."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import engine
import exports
import view

ROOT = Path(__file__).resolve().parents[2]
PURE = sorted(
    [f'engine.{m.name}' for m in pkgutil.iter_modules(engine.__path__)]
    + [f'view.{m.name}' for m in pkgutil.iter_modules(view.__path__)]
    + [f'exports.{m.name}' for m in pkgutil.iter_modules(exports.__path__)]
    + ['exports', 'server.layout', 'server.rooms', 'state']
)


def test_the_pure_modules_are_the_engines_and_the_views():
    assert {'engine.value', 'engine.ieee', 'view.graph', 'view.explanation', 'view.player_body'} <= set(PURE)


def test_importing_the_engine_the_view_and_the_exports_loads_no_streamlit():
    # a fresh interpreter: this one has Streamlit loaded by other tests
    loaded = 'sorted(m for m in sys.modules if m.split(".")[0] == "streamlit")'
    code = f'import sys\nfor m in {PURE!r}: __import__(m)\nprint({loaded})'
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == '[]'


def test_writing_the_docs_tables_needs_no_browser():
    # tests/unit/test_readme.py checks the docs' figures with it: no Playwright, no Streamlit
    loaded = 'sorted({m.split(".")[0] for m in sys.modules} & {"playwright", "streamlit"})'
    code = f'import sys\nfrom bench import readme_tables as t\nt.made(list(t.BLOCKS))\nprint({loaded})'
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == '[]'


# what each part of the page may import of the page: every arrow runs down, from the page's outline to the engine
MAY_IMPORT = {
    'engine': {'engine'},
    'view': {'engine', 'view'},
    'state': {'engine', 'view'},
    'server': {'engine', 'view', 'server'},
    'exports': {'engine', 'view', 'server', 'exports'},
    'components': {'engine', 'view', 'server', 'exports', 'state', 'components'},
    'app': {'engine', 'view', 'server', 'exports', 'state', 'components'},
}


def page_imports(path):
    """The page's parts (MAY_IMPORT's keys) that the module at `path` imports, by its import statements."""
    parts = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            parts |= {alias.name.split('.')[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts.add(node.module.split('.')[0])
    return parts & set(MAY_IMPORT)


def test_every_import_runs_down_the_layers_never_up():
    upward = []
    for part, allowed in MAY_IMPORT.items():
        paths = [ROOT / f'{part}.py'] if (ROOT / f'{part}.py').exists() else sorted((ROOT / part).rglob('*.py'))
        assert paths, part
        upward += [(str(p.relative_to(ROOT)), sorted(page_imports(p) - allowed)) for p in paths]
    assert [(path, parts) for path, parts in upward if parts] == []
