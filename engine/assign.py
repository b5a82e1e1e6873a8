"""The `=` bug, run for real: engine/value.py's own code with each `_backward`'s `X.grad += E` written `X.grad = E`.

The slip a student most often makes, and the reason micrograd writes +=: a value used twice (a + a, a*b + a*a)
is written once per use, and with = the last write throws the others away. So that the ops stay in one place,
this is not a copy: it reads value.py's source, finds those statements with ast, changes only them (backward()
and the forward math are value.py's, unchanged), and execs the result as a module of its own. The rewritten text
is in linecache under FILENAME, so inspect.getsource of a closure here shows the line it runs:
`self.grad = other.data * out.grad`.

The exec below compiles engine/value.py's own source, read from the package, and nothing else: no visitor's text
reaches it. A typed formula is read by engine/parse.py against its whitelist and built from Values, never evaluated.
"""

import ast
import inspect
import linecache
import types

from . import value as _seed

FILENAME = '<engine/value.py with = for +=>'


def _rewrite(source):
    """source with every `X.grad += E` directly in a function named _backward written `X.grad = E`.

    The text is edited where ast says each += is, so that comments, spacing and line numbers stay as they were;
    it is then checked to parse to the tree the same rewrite gives, statement for statement.
    """
    tree = ast.parse(source)
    lines = source.encode().splitlines(keepends=True)  # ast's columns count UTF-8 bytes
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == '_backward'):
            continue
        for j, s in enumerate(fn.body):
            target = getattr(s, 'target', None)
            if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and getattr(target, 'attr', '') == 'grad':
                fn.body[j] = ast.Assign(targets=[target], value=s.value)
                row = target.end_lineno - 1
                at = lines[row].index(b'+=', target.end_col_offset)
                lines[row] = lines[row][:at] + b'=' + lines[row][at + 2 :]
    text = b''.join(lines).decode()
    assert ast.dump(ast.parse(text)) == ast.dump(tree), 'the text must be the rewritten tree, and only that'
    return text


SOURCE = _rewrite(inspect.getsource(_seed))
# mtime None: linecache.checkcache() keeps an entry that has no file on disk
linecache.cache[FILENAME] = (len(SOURCE), None, SOURCE.splitlines(keepends=True), FILENAME)
_module = types.ModuleType(__name__)  # a namespace of its own: value.py's Value is left as it is
exec(compile(SOURCE, FILENAME, 'exec'), _module.__dict__)

Value, backward = _module.Value, _module.backward
as_value, topological_order = _module.as_value, _module.topological_order
