"""docs/adding-an-op.md, followed as a contributor would: its code blocks put into a scratch copy of the project,
where they say, and the unit suite run there. A recipe that forgets a place (a table of the tests, a row) leaves
that suite red, and so this test."""

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / 'docs' / 'adding-an-op.md'
# a block's first line names its file and where it goes: before a line that starts so, or inside a table that opens
# so (before the first line after it that is not indented: its closing bracket)
BLOCK = re.compile(r'^```python (\S+), (before|inside) "(.+?)"\n(.*?)^```$', re.M | re.S)


def edits():
    return [(path, where, anchor, code) for path, where, anchor, code in BLOCK.findall(RECIPE.read_text())]


def put(text, where, anchor, code):
    """`code` put in `text` where the block says, indented as the line it goes before; a row inside a table ends
    with its comma (the docs write it bare, as a formatter leaves a block of one expression)."""
    lines = text.splitlines(keepends=True)
    (start,) = [i for i, line in enumerate(lines) if line.startswith(anchor)]  # one place, and only one
    if where == 'inside':
        start = next(i for i in range(start + 1, len(lines)) if lines[i][:1] not in ' \n')
        before = lines[start - 1]  # the table's last row
        code = code.rstrip('\n') + ',\n'
    else:
        before = lines[start]
    indent = before[: len(before) - len(before.lstrip())]
    code = ''.join(indent + line if line.strip() else line for line in code.splitlines(keepends=True))
    apart = '' if where == 'inside' else '\n' if indent else '\n\n'  # a method's blank line, a function's two
    return ''.join(lines[:start] + [code, apart] + lines[start:])


def git(folder, *args):
    return subprocess.run(['git', *args], cwd=folder, check=True, capture_output=True, text=True).stdout


def test_the_recipe_says_where_each_of_its_three_rows_goes():
    assert [(path, where) for path, where, _, _ in edits()] == [
        ('engine/value.py', 'before'),
        ('engine/ops.py', 'before'),
        ('engine/ops.py', 'inside'),
        ('tests/unit/by_hand.py', 'inside'),
    ]


def test_sqrt_added_by_the_recipe_passes_the_whole_unit_suite_and_is_tested_there(tmp_path):
    copy = tmp_path / 'project'
    for name in git(ROOT, 'ls-files', '--cached', '--others', '--exclude-standard', '-z').split('\0'):
        if name and (ROOT / name).is_file():  # a contributor's clone: the project's files, none of what git ignores
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git(copy, 'init', '-q')
    git(copy, 'add', '-A')
    for path, where, anchor, code in edits():
        file = copy / path
        file.write_text(put(file.read_text(), where, anchor, code))
    report = tmp_path / 'report.xml'
    run = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-x', f'--junitxml={report}', 'tests/unit',
         '--ignore', 'tests/unit/test_adding_an_op.py'],
        cwd=copy, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    cases = [case.get('name') for case in ET.parse(report).iter('testcase')]
    # sqrt is checked where every op is: its grads by hand and by finite differences, its candidates, its held r
    for test in ['test_every_ops_grads_are_its_derivatives', 'test_each_ops_step_gives_the_candidates',
                 'test_every_line_that_names_a_held_number']:  # fmt: skip
        assert any(name.startswith(test) and 'sqrt' in name for name in cases), test
    assert len(cases) > 2000
