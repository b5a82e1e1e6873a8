"""parse_expression: typed formulas become Expressions; anything else is an ExpressionError, never a crash."""

import ast
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import engine.parse
from engine import MAX_DEPTH, MAX_LENGTH, MAX_NODES, PRESETS, ExpressionError, Value, backward, parse_expression

FAST = settings(max_examples=200, deadline=None)

LECTURE_NEURON = {'x1': 2.0, 'w1': -3.0, 'x2': 0.0, 'w2': 1.0, 'b': 6.8813735870195432}


def grads(text, values=None):
    """Parse, build with `values`, run backward: (output, {input name: grad})."""
    expression = parse_expression(text)
    leaves, out = expression.build(values)
    backward(out)
    return out, {v.label: v.grad for v in leaves}


# --- good input ------------------------------------------------------------------------------------


def test_neuron_formula_lists_inputs_in_order_of_first_use():
    expression = parse_expression('tanh(x1*w1 + x2*w2 + b)')
    assert list(expression.defaults) == ['x1', 'w1', 'x2', 'w2', 'b']


def test_neuron_formula_with_lecture_values_gives_the_lecture_grads():
    # do/dn = 1 - tanh(n)^2 = 0.5 at n = asinh(1): grads w1/2, x1/2, w2/2, x2/2, 1/2
    out, g = grads('tanh(x1*w1 + x2*w2 + b)', LECTURE_NEURON)
    assert out.data == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    assert [round(g[k], 9) for k in ['x1', 'w1', 'x2', 'w2', 'b']] == [-1.5, 1.0, 0.5, 0.0, 0.5]


def test_neuron_formula_matches_the_neuron_preset():
    # same graph, same float operations: the same grads as the preset, which are the hand numbers above
    _, g = grads('tanh(x1*w1 + x2*w2 + b)', LECTURE_NEURON)
    leaves, out = PRESETS['neuron'].build(LECTURE_NEURON)
    backward(out)
    assert [g[v.label] for v in leaves] == [v.grad for v in leaves]
    assert [round(v.grad, 9) for v in leaves] == [-1.5, 1.0, 0.5, 0.0, 0.5]


def test_name_used_twice_is_one_leaf():
    # a*b + a*a: d/da = b + 2a = 4, d/db = a = 3 at a = 3, b = -2
    expression = parse_expression('a*b + a*a')
    leaves, out = expression.build({'a': 3.0, 'b': -2.0})
    assert [v.label for v in leaves] == ['a', 'b']
    backward(out)
    assert out.data == 3.0
    assert [v.grad for v in leaves] == [4.0, 3.0]


def test_assignment_labels_the_output_and_its_right_side_gives_the_inputs():
    # L = (a*b + c) * f: dL/da = b f = 6, dL/db = a f = -4, dL/dc = f = -2, dL/df = ab + c = 4
    expression = parse_expression('L = (a*b + c) * f')
    assert list(expression.defaults) == ['a', 'b', 'c', 'f']
    out, g = grads('L = (a*b + c) * f', {'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0})
    assert out.label == 'L'
    assert out.data == -8.0
    assert g == {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}


def test_assignment_without_spaces_labels_the_output():
    out, g = grads('L=(a*b+c)*f', {'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0})
    assert out.label == 'L'
    assert g == {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}


@pytest.mark.parametrize(
    'text, x, data, grad',
    [
        # each derived by hand
        ('-x', 2.0, -2.0, -1.0),
        ('+x', 2.0, 2.0, 1.0),
        ('2*x', 2.0, 4.0, 2.0),
        ('x*2', 2.0, 4.0, 2.0),
        ('1 - x', 2.0, -1.0, -1.0),
        ('x - 1', 2.0, 1.0, 1.0),
        ('3 + x', 2.0, 5.0, 1.0),
        ('1/x', 2.0, 0.5, -0.25),  # -1/x^2
        ('x/4', 2.0, 0.5, 0.25),
        ('2*x + x/4 - 3 + 1/x', 2.0, 2.0, 2.0),  # 4 + 0.5 - 3 + 0.5; 2 + 0.25 - 0.25
        ('x**2', 3.0, 9.0, 6.0),
        ('x**-1', 2.0, 0.5, -0.25),
        ('x ** (-1)', 2.0, 0.5, -0.25),
        ('x**0.5', 4.0, 2.0, 0.25),  # 1 / (2 sqrt(x))
        ('x**3 - x', 2.0, 6.0, 11.0),
        ('exp(x)', 0.0, 1.0, 1.0),
        ('log(x)', 2.0, math.log(2.0), 0.5),
        ('relu(x)', 2.0, 2.0, 1.0),
        ('relu(x)', -1.0, 0.0, 0.0),
        ('sigmoid(x)', 0.0, 0.5, 0.25),
        ('tanh(x)', 0.0, 0.0, 1.0),
        ('-tanh(-x)', 0.0, 0.0, 1.0),
        ('exp(log(x))', 3.0, 3.0, 1.0),
        ('((x))', 5.0, 5.0, 1.0),
        ('x', 5.0, 5.0, 1.0),
        ('  x * x  ', 5.0, 25.0, 10.0),
    ],
)
def test_formula_data_and_grad_match_hand_values(text, x, data, grad):
    expression = parse_expression(text)
    assert list(expression.defaults) == ['x']
    out, g = grads(text, {'x': x})
    assert isinstance(out, Value)
    assert out.data == pytest.approx(data, rel=1e-12, abs=1e-15)
    assert g['x'] == pytest.approx(grad, rel=1e-12, abs=1e-15)


def test_a_formula_that_is_just_a_name_still_has_an_output_node():
    expression = parse_expression('x')
    leaves, out = expression.build({'x': 5.0})
    assert [v.label for v in leaves] == ['x']
    assert out.data == 5.0
    backward(out)
    assert leaves[0].grad == 1.0


def test_inputs_default_to_a_number_and_can_be_overridden():
    expression = parse_expression('a*b')
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in expression.defaults.values())
    _, out = expression.build({'a': 3.0, 'b': 4.0})
    assert out.data == 12.0


def test_formula_with_only_numbers_has_no_inputs():
    expression = parse_expression('2 * 3 + 1')
    leaves, out = expression.build()
    assert leaves == []
    assert out.data == 7.0


def test_each_build_makes_a_fresh_graph():
    expression = parse_expression('a*a')
    (a1,), out1 = expression.build({'a': 3.0})
    (a2,), out2 = expression.build({'a': 3.0})
    assert a1 is not a2
    backward(out1)
    backward(out2)
    assert a1.grad == a2.grad == 6.0


def test_nesting_within_the_limits_is_accepted():
    text = 'tanh(' * 10 + 'x' + ')' * 10
    _, g = grads(text, {'x': 0.0})
    assert g['x'] == 1.0  # every tanh has slope 1 at 0


# --- bad input -------------------------------------------------------------------------------------

BAD = [
    'a +* b',
    '(a',
    'a)',
    '(a + b',
    '',
    '   ',
    'x.__class__',
    "__import__('os')",
    "__import__('os').system('ls')",
    'x[0]',
    'lambda: 1',
    '[x for x in y]',
    '9**9**9',
    'x**1000',
    'x**y',
    'x**(1/2)',
    '2**x',
    'foo(x)',
    'open(x)',
    'tanh(x=1)',
    'tanh(x, y)',
    'tanh()',
    "'abc'",
    '1j',
    'True',
    'None',
    'a < b',
    'a == b',
    'a and b',
    'x if y else z',
    'a^b',
    'a // b',
    'a % b',
    'x @ y',
    '_x',
    'x + _y',
    '__class__',
    'tanh',
    'x, y',
    '1e999',
    'x\ny',
    'x; y',
    'L = ',
    'x = y = z',
    '(' * 10000 + 'x' + ')' * 10000,
    '(' * 201 + 'x' + ')' * 201,  # Python's own parser limit, under MAX_LENGTH
    'tanh(' * 60 + 'x' + ')' * 60,
    '-' * 300 + 'x',
    '1' + '0' * 400,  # an integer too large for a float
    'x**1' + '0' * 400,
    'x' + '+x' * (MAX_LENGTH // 2),
]


@pytest.mark.parametrize('text', BAD, ids=[repr(t[:30]) + (f'..{len(t)}' if len(t) > 30 else '') for t in BAD])
def test_bad_input_raises_expression_error_with_a_message(text):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert info.value.message
    assert str(info.value)
    column = info.value.column
    assert isinstance(column, int) and 1 <= column <= len(text) + 1


@pytest.mark.parametrize(
    'text, column',
    [
        # 1-based columns, counted by hand
        ('a +* b', 4),  # the '*' that cannot follow '+'
        ('x + _y', 5),
        ('exp(tanh)', 5),
        ('x.__class__', 2),  # the '.'
        ('a + foo(x)', 5),
        ('a + x[0]', 6),  # the '['
        ('2 * (a < b)', 8),  # the '<'
    ],
)
def test_bad_input_points_at_the_column(text, column):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert info.value.column == column
    assert f'column {column}' in str(info.value)


@pytest.mark.parametrize(
    'text, column, words',
    [
        # 1-based columns in the text as typed, counted by hand
        ('', 1, 'type a formula'),
        ('   ', 1, 'type a formula'),
        ('x' * (MAX_LENGTH + 1), MAX_LENGTH + 1, str(MAX_LENGTH)),
        ('  ' + 'x' * (MAX_LENGTH - 1), MAX_LENGTH + 1, str(MAX_LENGTH)),  # spaces count: the link carries them
        (' ' * 200_000 + 'L = a*b + c', MAX_LENGTH + 1, '200,011 characters'),  # padded: refused, not drawn
        ('  a +* b', 6, 'not a formula I can read'),  # leading spaces count: the student sees them
        ('x +', 3, 'nothing after it'),  # the dangling +, the 3rd character, not the end of the text
        ('(a + )', 4, 'nothing after it'),  # the +, not the ( or the )
        ('a + (b * )', 8, 'nothing after it'),  # the *, 8th
        ('  L = a -', 9, 'nothing after it'),  # columns count the leading spaces and the name
        ('(a + b', 1, 'never closed'),  # a bracket never closed: at the bracket
        ('a + b)', 6, 'one ) too many'),  # a ) with no (: at the )
        ('L = ', 4, 'not a formula I can read'),  # nothing after the =
        ('x\ny', 2, 'one line'),
        ('x; y', 2, 'one line'),
        ('*'.join(['-' * 30 + 'x'] * 10), 1, str(MAX_NODES)),  # the whole formula is too big
        ('  y = ' + '*'.join(['-' * 30 + 'x'] * 10), 7, str(MAX_NODES)),  # from the first column of the formula
    ],
)
def test_every_error_carries_a_column(text, column, words):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert (info.value.column, words in info.value.message) == (column, True)


def column_of(text, part, occurrence=0):
    """The 1-based column of the `occurrence`-th `part` in text (-1: the last), found with str.find alone."""
    starts = [i for i in range(len(text)) if text.startswith(part, i)]
    return starts[occurrence] + 1


def refusal(text):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    return info.value


# --- brackets: the one never closed, or the one too many, at its column -------------------------------

UNCLOSED = [
    # text, and which '(' is left open: its occurrence among the text's '(' (-1: the last)
    ('(a*b +', 0),  # the issue's: a dangling + inside, yet the bracket is what to mention
    ('sin(x', 0),
    ('(a*(b+c)', 0),  # the inner one is closed: the outer one is not
    ('((a', -1),  # both are open: the innermost first, the one a ) typed next would close
    ('(a', 0),
    ('tanh(x +', 0),
    ('tanh(x,', 0),
    ('a * (b + c', 0),
    ('tanh(sin(x)', 0),
    ('  L = (a*b +', 0),  # leading spaces and the assignment count
    ('ｘ + (y', 0),  # a wide character before it is one column
    ('(a + ) + (b', -1),  # the closed (a + ) is not the one: the last ( is
]


@pytest.mark.parametrize('text, which', UNCLOSED)
def test_a_bracket_never_closed_is_named_with_its_column_and_the_caret_is_at_it(text, which):
    error = refusal(text)
    bracket = column_of(text, '(', which)
    assert error.column == bracket
    assert f'the ( opened at column {bracket} is never closed' in error.message
    assert str(error).startswith(f'column {bracket}: ')


def test_a_dangling_operator_inside_an_unclosed_bracket_is_named_after_the_bracket():
    text = '(a*b +'
    error = refusal(text)
    assert error.column == text.index('(') + 1
    assert 'never closed' in error.message
    assert f'the + at column {text.index("+") + 1} has nothing after it' in error.message


def test_every_bracket_left_open_is_named():
    text = '(((a'
    error = refusal(text)
    assert error.column == text.rindex('(') + 1
    assert f'columns {text.index("(") + 1} and {text.index("(") + 2}' in error.message


@pytest.mark.parametrize(
    'text, which',
    [
        # text, and which ')' is the one too many: its occurrence among the text's ')' (-1: the last)
        ('a + b)', 0), ('a)', 0), (')', 0), ('(a))', -1), ('tanh(x))', -1), ('a*b)+(c', 0), ('  L = a)', 0),
    ],
)  # fmt: skip
def test_a_closing_bracket_too_many_is_named_at_its_column(text, which):
    error = refusal(text)
    extra = column_of(text, ')', which)
    assert error.column == extra
    assert f'the ) at column {extra} has no ( to close' in error.message and 'too many' in error.message


@pytest.mark.parametrize('text, opener, closer', [('(a + b]', '(', ']'), ('[a + b)', '[', ')'), ('tanh(x]', '(', ']')])
def test_a_bracket_that_closes_another_kind_is_named_at_its_column(text, opener, closer):
    error = refusal(text)
    assert error.column == text.index(closer) + 1
    assert f'cannot close the {opener} opened at column {text.index(opener) + 1}' in error.message


@pytest.mark.parametrize('text, sign', [('(a + )', '+'), ('a + (b * )', '*'), ('x +', '+'), ('(a) -', '-')])
def test_a_dangling_operator_outside_any_open_bracket_keeps_its_message(text, sign):
    error = refusal(text)
    assert error.message == f'{sign} has nothing after it: write what it works on'
    assert error.column == text.rindex(sign) + 1


def test_a_bracket_inside_a_quoted_string_is_not_the_formulas():
    text = "'(' +"
    error = refusal(text)
    assert 'never closed' not in error.message
    assert error.column == text.index('+') + 1


# --- each refusal of a part points at that part ---------------------------------------------------------

AT_THE_PART = [
    # text, the part the message names (its first occurrence is where the caret goes), words of the message
    ('a**b', 'b', 'exponent'),  # the issue's: at the exponent, not at a
    ('x**y', 'y', 'exponent'),
    ('  L = a ** b', 'b', 'exponent'),
    ('2**x', 'x', 'exponent'),
    ('tanh(x ** y)', 'y', 'exponent'),
    ('a ** -b', '-', 'exponent'),
    ('x**(1/2)', '(', 'exponent'),  # the exponent as typed, from its bracket
    ('(x)**y', 'y', 'exponent'),
    ('ｘ**ｙ', 'ｙ', 'exponent'),  # columns count characters, not UTF-8 bytes
    ('x**1000', '1000', 'too large'),
    ('a + x**-101', '-101', 'too large'),
    ('a + foo(x)', 'foo', 'not a function'),
    ('(foo)(x)', 'foo', 'not a function'),
    ('tanh(x, y)', 'y', 'exactly one argument'),  # the argument too many
    ('tanh(x, y, z)', 'y', 'exactly one argument'),
    ('  exp()', '(', 'exactly one argument'),  # no argument: its empty brackets
    ('tanh(x=1)', 'x', 'plain argument'),
    ('tanh(*x)', '*', 'plain argument'),
    ('tanh(x, **k)', '**', 'plain argument'),
    ('x.y', '.', 'attribute'),
    ('(a).b', '.', 'attribute'),
    ('a + x[0]', '[', 'indexing'),
    ('2 * (a < b)', '<', 'comparisons'),
    ('(a) ^ b', '^', '**'),
    ('a // b', '//', '//'),
    ('a % b', '%', '%'),
    ('a @ b', '@', '@'),
    ('a and b', 'and', '"and" / "or"'),
    ('a or b', 'or', '"and" / "or"'),
    ('x if y else z', 'if', 'if ... else'),
    ('[x for x in y]', 'for', 'comprehensions'),
    ('x, y', ',', 'comma'),
    ('not a', 'not', '"not"'),
    ('a * ~b', '~', '~'),
    ('a + "x"', '"', 'not a number'),
    ('x + _y', '_y', 'plain name'),
    ('lambda: 1', 'lambda', 'lambda'),
]


@pytest.mark.parametrize('text, part, words', AT_THE_PART)
def test_a_refusal_points_at_the_part_it_names(text, part, words):
    error = refusal(text)
    assert (error.column, words in error.message) == (text.index(part) + 1, True), error.message


@pytest.mark.parametrize(
    'text, column',
    [
        ('x # **bold** [link](http://e.x)', 3),
        ('# x', 1),
        ('x#', 2),
        ('L = a*b #', 9),
        ('tanh(x) #\u200b', 9),  # the comment, before the character after it
    ],
)
def test_a_comment_is_refused_at_its_hash(text, column):
    # ast would drop '# ...' silently, and the formula's text is shown on the page: a way to inject markdown
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert info.value.message == 'comments (#) are not allowed in a formula'
    assert info.value.column == column


@pytest.mark.parametrize(
    'text, column, code',
    [
        ('\ud800', 1, 'U+D800'),  # a lone surrogate: ast.parse and str.encode raise UnicodeEncodeError
        ('x\udcff', 2, 'U+DCFF'),
        ('x\x00', 2, 'U+0000'),  # a null byte: ast.parse raises ValueError
        ('x\u200b+y', 2, 'U+200B'),  # zero-width space
        ('x\u200d+y', 2, 'U+200D'),  # zero-width joiner
        ('a\u200f*b', 2, 'U+200F'),  # right-to-left mark
        ('a*\u202eb', 3, 'U+202E'),  # right-to-left override: the text would read backwards
        ('\ufeffx', 1, 'U+FEFF'),  # a byte order mark
        ('a\tb', 2, 'U+0009'),  # a tab is a control character too
        ('a\x1bb', 2, 'U+001B'),
        ('a\u00a0+b', 2, 'U+00A0'),  # a no-break space looks like a space but is not one to Python
    ],
)
def test_a_character_that_does_not_print_is_refused_at_its_column(text, column, code):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert info.value.column == column
    assert code in info.value.message


@pytest.mark.parametrize('error', [SyntaxError, ValueError, UnicodeError, RecursionError, MemoryError, OverflowError])
def test_every_way_ast_can_fail_becomes_an_expression_error_with_a_column(monkeypatch, error):
    def failing(*args, **kwargs):
        raise error('as ast.parse might')

    monkeypatch.setattr(engine.parse.ast, 'parse', failing)
    with pytest.raises(ExpressionError) as info:
        parse_expression('  x + y')
    assert 1 <= info.value.column <= len('  x + y') + 1


def test_a_warning_turned_into_an_error_becomes_an_expression_error(monkeypatch):
    # under python -W error, ast.parse('1if x else 2') raises where it would only warn
    def warning_as_error(*args, **kwargs):
        raise SyntaxWarning('invalid decimal literal')

    monkeypatch.setattr(engine.parse.ast, 'parse', warning_as_error)
    with pytest.raises(ExpressionError) as info:
        parse_expression('1if x else 2')
    assert info.value.column == 1


def test_column_counts_characters_not_bytes_after_a_wide_character():
    # 'ｘ' (fullwidth x, accepted as x) is one character but three UTF-8 bytes: '_y' is the 5th character
    assert list(parse_expression('ｘ * 2').defaults) == ['x']
    with pytest.raises(ExpressionError) as info:
        parse_expression('ｘ + _y')
    assert info.value.column == 5


def test_expression_error_is_a_value_error():
    assert issubclass(ExpressionError, ValueError)


def test_assignment_of_a_bare_name_labels_the_output():
    out, g = grads('y = x', {'x': 5.0})
    assert out.label == 'y'
    assert out.data == 5.0
    assert g == {'x': 1.0}


@pytest.mark.parametrize('text', ['1' + '0' * 400, 'x * 1' + '0' * 400, 'x**1' + '0' * 400, '2*x + ' + '9' * 320])
def test_integer_literal_too_large_for_a_float_raises_expression_error(text):
    # 10**400 has no float; like '1e999' (inf), it is a number the page cannot use
    assert len(text) <= MAX_LENGTH
    with pytest.raises(ExpressionError):
        parse_expression(text)


def test_caret_suggests_double_star():
    with pytest.raises(ExpressionError) as info:
        parse_expression('a^b')
    assert '**' in info.value.message


def test_names_with_a_leading_underscore_are_refused():
    for text in ['_x', '_', '__x__ + 1', 'tanh(_a)']:
        with pytest.raises(ExpressionError):
            parse_expression(text)


def test_deep_but_short_nesting_beyond_max_depth_is_refused():
    text = 'tanh(' * (MAX_DEPTH + 20) + 'x' + ')' * (MAX_DEPTH + 20)
    assert len(text) <= MAX_LENGTH  # so it is the depth that is refused, not the length
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert str(MAX_DEPTH) in info.value.message


def test_ten_thousand_nested_parentheses_are_refused():
    with pytest.raises(ExpressionError):
        parse_expression('(' * 10000 + 'x' + ')' * 10000)


def test_input_one_character_over_the_length_limit_is_refused():
    text = 'x' + '+x' * (MAX_LENGTH // 2)
    assert len(text) == MAX_LENGTH + 1
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert str(MAX_LENGTH) in info.value.message


def test_graph_with_too_many_nodes_is_refused_under_the_length_and_depth_limits():
    # 10 factors of 30 negations of x: 300 negations + 9 products + the input x = 310 values,
    # nested at most 9 + 30 deep, in 319 characters
    text = '*'.join(['-' * 30 + 'x'] * 10)
    assert len(text) <= MAX_LENGTH
    assert 310 > MAX_NODES and 9 + 30 < MAX_DEPTH
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert str(MAX_NODES) in info.value.message


def test_graph_just_under_the_node_limit_is_accepted():
    # 4 factors of 30 negations: 120 negations + 3 products + x = 124 values
    text = '*'.join(['-' * 30 + 'x'] * 4)
    _, g = grads(text, {'x': 2.0})
    # (-1)^120 x^4 = x^4: d/dx = 4 x^3 = 32
    assert g['x'] == 32.0


# --- fuzzing ---------------------------------------------------------------------------------------


def parse_or_refuse(text):
    try:
        expression = parse_expression(text)
    except ExpressionError as e:
        assert e.message
        return
    leaves, out = expression.build()
    assert isinstance(out, Value)
    assert [v.label for v in leaves] == list(expression.defaults)
    backward(out)


@FAST
@given(st.text())
def test_any_text_parses_or_raises_expression_error(text):
    parse_or_refuse(text)


TOKENS = list('xyab12.0 +-*/()=^_,e') + ['tanh(', 'exp(', 'log(', 'relu(', '**', '**-', '1e400', '9' * 320, 'L =']


@FAST
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(''.join))
@example('9' * 320)
def test_formula_like_text_parses_or_raises_expression_error(text):
    parse_or_refuse(text)


def formulas(depth=3):
    """Random formulas over x and y that plain Python can evaluate too."""
    leaf = st.sampled_from(['x', 'y', '0.5', '2', '1.5'])
    if depth == 0:
        return leaf
    sub = formulas(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(['+', '-', '*']), sub).map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        st.tuples(st.sampled_from(['tanh', 'sigmoid', '-']), sub).map(lambda t: f'{t[0]}({t[1]})'),
        sub.map(lambda s: f'({s})**2'),
    )


def python_value(text, x, y):
    """The formula evaluated by Python itself on floats: the independent reference."""
    namespace = {'tanh': math.tanh, 'sigmoid': lambda v: 1 / (1 + math.exp(-v)), 'x': x, 'y': y}
    return eval(text, {'__builtins__': {}}, namespace)  # test-only, on generated formulas


@FAST
@given(formulas(), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5))
def test_parsed_formula_grads_match_finite_differences_of_python_evaluation(text, x, y):
    expression = parse_expression(text)
    leaves, out = expression.build({k: v for k, v in {'x': x, 'y': y}.items() if k in expression.defaults})
    backward(out)
    assert out.data == pytest.approx(python_value(text, x, y), rel=1e-12, abs=1e-12)
    h = 1e-6
    numeric = {
        'x': (python_value(text, x + h, y) - python_value(text, x - h, y)) / (2 * h),
        'y': (python_value(text, x, y + h) - python_value(text, x, y - h)) / (2 * h),
    }
    for leaf in leaves:
        assert leaf.grad == pytest.approx(numeric[leaf.label], rel=1e-5, abs=1e-6)


# --- never eval ------------------------------------------------------------------------------------


def test_parser_never_calls_eval_exec_or_compile():
    source = Path(engine.parse.__file__).read_text()
    banned = {'eval', 'exec', 'compile', '__import__'}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            assert name not in banned, f'line {node.lineno} calls {name}'
        if isinstance(node, ast.Name):  # not even passed around, e.g. getattr(builtins, ...) aside
            assert node.id not in banned, f'line {node.lineno} uses {node.id}'


def test_the_eval_check_would_catch_an_eval_call():
    # the same walk over a snippet that does call eval, so the check above can fail
    tree = ast.parse('def f(text):\n    return eval(text)\n')
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert 'eval' in calls
