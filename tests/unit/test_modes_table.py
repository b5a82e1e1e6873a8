"""The modes are one table (view/modes.py): every mode a link can name has a row, and below app.py the mode is read
from the scene, never guessed from the trace."""

import ast
from pathlib import Path

import pytest

import state
from engine import ENGINES, PRESETS, exercise, trace_backward
from server.cache import traced
from view import modes

ROOT = Path(__file__).resolve().parents[2]
BESIDE = ('COLUMN', 'STATE_WORDS', 'EVERY_FRAME', 'frame_texts', 'summary_html')  # a view module's names


def test_every_mode_a_link_names_has_a_row_with_its_label_and_help():
    assert state.MODES == modes.NAMES == tuple(mode.name for mode in modes.MODES)
    for mode in modes.MODES:
        assert mode.label and mode.help in modes.HELP, mode.name
    assert len({mode.label for mode in modes.MODES}) == len(modes.MODES)


def test_a_mode_with_an_engine_of_its_own_has_a_view_module_that_draws_its_parts_beside_the_right_trace():
    for mode in modes.MODES:
        assert mode.engine in ENGINES, mode.name
        assert (mode.view is None) == (mode.engine == ''), mode.name
        if mode.view is not None:
            assert all(hasattr(mode.view, name) for name in BESIDE), mode.name
            assert set(mode.view.STATE_WORDS) >= {'none', 'accumulating', 'final', 'hidden', 'wrong'}


@pytest.mark.parametrize('key', PRESETS)
def test_why_not_says_none_or_a_reason_for_every_mode_and_preset(key):
    expression = PRESETS[key]
    leaves, out = expression.build()
    trace = trace_backward(out, leaves)
    for mode in modes.MODES:
        reason = mode.why_not(expression, trace)
        assert reason is None or (isinstance(reason, str) and reason), (mode.name, key)
        shown, said = modes.in_force(mode.name, expression, trace)
        assert (shown, said) == ((mode, None) if reason is None else (modes.MODE['watch'], reason))
    assert modes.MODE['watch'].why_not(expression, trace) is None  # watching always applies


def python_files(*folders):
    return [path for folder in folders for path in sorted((ROOT / folder).rglob('*.py'))]


def test_below_app_py_no_one_guesses_the_mode_from_the_trace():
    # a trace carries no right trace, and whether it assigns is the engine's own business (engine/), not the view's
    guesses = []
    for path in python_files('view', 'components', 'exports', 'server') + [ROOT / 'app.py']:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == 'assigns':
                guesses.append(f'{path.relative_to(ROOT)}:{node.lineno} .assigns')
            if isinstance(node, ast.Attribute) and node.attr == 'right' and 'trace' in ast.unparse(node.value):
                guesses.append(f'{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}')
    assert guesses == []


def test_the_cache_hands_back_each_trace_as_the_engine_made_it_with_no_right_trace_set_on_it():
    expression = PRESETS['reuse']
    values = tuple(expression.defaults.items())
    bodies = tuple((name, exercise.answer(name)) for name in exercise.OPS)
    for how in ({}, {'engine': 'assigns'}, {'engine': 'bodies', 'bodies': bodies}):
        trace = traced(expression=expression, values=values, **how)[0]
        assert not hasattr(trace, 'right'), how


def test_every_mode_has_its_row_of_page_parts():
    from components.modes import PARTS, Parts

    assert list(PARTS) == list(modes.NAMES)
    assert all(isinstance(parts, Parts) for parts in PARTS.values())


def mode_branches(path):
    """Where `path` compares a mode with a mode's name (`s.mode == 'quiz'`, `mode.name in ('bug', 'code')`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [n.value for side in sides for n in ast.walk(side) if isinstance(n, ast.Constant)]
            if any(name in modes.NAMES for name in named) and 'mode' in ast.unparse(node):
                found.append(f'{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}')
    return found


def test_no_code_outside_the_modes_tables_branches_on_a_modes_name():
    # a mode is its rows (view/modes.py, components/modes.py): a new one adds rows, not branches all over the page
    tables = {ROOT / 'view' / 'modes.py', ROOT / 'components' / 'modes.py'}
    files = python_files('view', 'components', 'exports', 'server') + [ROOT / 'app.py', ROOT / 'state.py']
    assert [branch for path in files if path not in tables for branch in mode_branches(path)] == []


def test_app_py_reads_the_same_for_every_mode():
    # no `if` on the mode in force or asked for: its parts and flags go to the same calls, whichever mode it is
    tests = [node.test for node in ast.walk(ast.parse((ROOT / 'app.py').read_text())) if isinstance(node, ast.If)]
    on_mode = [t for t in tests if {'mode', 'asked', 'parts'} & {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}]
    assert [ast.unparse(t) for t in on_mode + [t for t in tests if '.mode' in ast.unparse(t)]] == []
