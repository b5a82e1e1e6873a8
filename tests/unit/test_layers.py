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


# what each part of the page may import of the page, by module (a package's name allows all of it): every arrow runs
# down, from the page's outline to the engine
MAY_IMPORT = {
    'engine': {'engine'},
    'view': {'engine', 'view'},
    'state': {'engine', 'view'},
    'server': {'engine', 'view', 'state', 'server'},  # state: a class's scenario read as the page reads a link
    'exports': {'engine', 'view', 'server.layout', 'exports'},
    'components': {'engine', 'view', 'server', 'exports', 'state', 'components'},
    'app': {'engine', 'view', 'server', 'exports', 'state', 'components'},
    'main': {'server'},  # the server: the page (app.py, by its path) and the live class's routes
}
PARTS = (*MAY_IMPORT, 'bench', 'scripts', 'tests')


def page_imports(path, part):
    """The modules of the page (of PARTS) that the module at `path`, in `part`, imports anywhere in it (a lazy import
    inside a function too), by their full names; a relative import is within `part`."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            modules.add(part)
        elif isinstance(node, ast.ImportFrom):  # `from server import cache`: server, or its module server.cache
            modules |= {node.module} | {f'{node.module}.{alias.name}' for alias in node.names}
    return {m for m in modules if m.split('.')[0] in PARTS}


def allowed(module, may):
    return any(module == m or module.startswith(f'{m}.') or m.startswith(f'{module}.') for m in may)


def test_every_import_runs_down_the_layers_never_up():
    upward = []
    for part, may in MAY_IMPORT.items():
        paths = [ROOT / f'{part}.py'] if (ROOT / f'{part}.py').exists() else sorted((ROOT / part).rglob('*.py'))
        assert paths, part
        for path in paths:
            wrong = sorted(m for m in page_imports(path, part) if not allowed(m, may))
            upward += [(str(path.relative_to(ROOT)), wrong)] if wrong else []
    assert upward == []


def test_the_layer_check_sees_a_lazy_import_of_the_caches_in_the_exports(tmp_path):
    lazy = tmp_path / 'lazy.py'
    lazy.write_text('def f():\n    from server import cache\n    from server.layout import run\n')
    assert sorted(m for m in page_imports(lazy, 'exports') if not allowed(m, MAY_IMPORT['exports'])) == ['server.cache']


def test_the_test_support_the_lab_shares_imports_no_lab_and_no_test():
    """tests/support/ (a server of the page, replicas, a class's clients) is what the tests and bench/ share: it
    imports neither the lab nor a test, so that a test never needs bench/ and bench/ needs no test."""
    paths = sorted((ROOT / 'tests' / 'support').glob('*.py'))
    assert {'serve.py', 'replicas.py', 'follow.py'} <= {path.name for path in paths}
    wrong = {p.name: sorted(m for m in page_imports(p, 'tests') if not m.startswith('tests.support')) for p in paths}
    assert {name: modules for name, modules in wrong.items() if modules} == {}
