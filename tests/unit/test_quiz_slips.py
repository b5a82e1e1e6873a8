"""The quiz's word on a wrong answer (view/explanation.slip_words): typed, each value a slip gives (engine/answers.py's
candidates, every group its MISTAKES name) gets one sentence naming that slip, whose numbers, read back from the text
and worked out again in exact decimals, come to the value typed; a value no slip gives is said to be not the right
one, with a nudge. Every preset, every backward step, every grad it writes."""

import re

import pytest

from engine import PRESETS, Value, trace_backward
from engine.answers import GROUPS, MISTAKES, candidates, classify
from tests.unit.test_arithmetic_lines import NUMBER, decimal, works_out
from view.explanation import slip_words
from view.numbers import number

N = rf'\(?({NUMBER})\)?'  # a number, bracketed where negative after an operator
# what each slip's sentence says, read back: its pattern (its first number is the answer typed), and what its numbers
# come to
SAYS = {
    'forgot': re.compile(
        rf'^({NUMBER}) is the local gradients? alone, (.+): it was not multiplied by .+? = ({NUMBER})'
    ),
    'local': re.compile(rf'^({NUMBER}) is .+? (?:alone|once for each use, (\d+) × ({NUMBER})): the local gradient \('),
    'swapped': re.compile(
        rf'^({NUMBER}) is .+?’s own data × .+?: {N} × {N} ([=≈]) ({NUMBER}); × takes the other input'
    ),
    'out_data': re.compile(
        rf'^({NUMBER}) is the local gradient \((.+)\) × .+?\.data = ({NUMBER}): {N} × {N} ([=≈]) ({NUMBER}), '
        rf'out\.data where out\.grad = ({NUMBER}) belongs'
    ),
    'assign': re.compile(
        rf'^({NUMBER}) is this step’s last contribution alone, {N} × {N} ([=≈]) ({NUMBER}): = was '
        rf'written for \+=, and the .+ was lost\.$'
    ),
    'sign': re.compile(
        rf'^({NUMBER}) (?:has the sign slipped: the step adds ({NUMBER}) to .+?, not ({NUMBER})\.$|is '
        rf'the step’s ({NUMBER}) taken away, not added: {N} − {N} ([=≈]) ({NUMBER})\.$)'
    ),
    'other': re.compile(rf'^({NUMBER}) is not the right value, and no slip we know of gives it\. Work it out again: '),
}
HELD = re.compile(rf'; added to the ({NUMBER}) .+? held: {N} \+ {N} ([=≈]) ({NUMBER})\.$')


def traced(key):
    leaves, out = PRESETS[key].build()
    return trace_backward(out, leaves)


def ending(text):
    """The number a local gradient's words end in: 'w1.data = −3.0000' and '1 − t² = … = 0.5000, where t = …' give
    their last before any 'where'; '1' and '−1' themselves."""
    return decimal(re.findall(r'[−-]?\d+(?:\.\d+)?', text.split(', where ')[0])[-1])


def check(sentence, group, value, before):
    """The sentence names `group`'s slip, and its numbers come to `value` (as shown); `before`, what the grad held."""
    m = SAYS[group].match(sentence)
    assert m, (group, sentence)
    assert m.group(1) == number(value), sentence
    held = HELD.search(sentence)
    assert (held is not None) == (before != 0 and group in ('forgot', 'local', 'swapped', 'out_data')), sentence
    if held:  # the grad held `before`; the slip's amount added to it comes to the value typed
        b, b_again, x, sign, total = held.groups()
        assert b == b_again == number(before) and total == number(value), sentence
        assert (sign == '=') == works_out(decimal(b) + decimal(x), total), sentence
    if group == 'forgot':
        x = sum(ending(g) for g in m.group(2).split(' and '))
        assert works_out(x, held.group(3) if held else m.group(1)), sentence
    elif group == 'local':
        uses, out_grad = (int(m.group(2)), m.group(3)) if m.group(2) else (1, None)
        amount = held.group(3) if held else m.group(1)
        assert out_grad is None or works_out(uses * decimal(out_grad), amount), sentence
    elif group == 'out_data':  # the local gradients' sum × the node's own data, where out.grad belongs
        gradients, data, x, data_again, sign, product = m.groups()[1:7]
        assert data == data_again and works_out(sum(ending(g) for g in gradients.split(' and ')), x), sentence
        assert (sign == '=') == works_out(decimal(x) * decimal(data), product), sentence
        assert product == (held.group(3) if held else m.group(1)), sentence
    elif group in ('swapped', 'assign'):
        a, b, sign, product = m.groups()[1:5]
        assert (sign == '=') == works_out(decimal(a) * decimal(b), product), sentence
        assert product == (held.group(3) if held else m.group(1)), sentence
    elif group == 'sign':
        adds, instead, taken, b, x, sign, total = m.groups()[1:]
        if adds is not None:  # nothing held: the contribution with its sign slipped
            assert decimal(instead) == -decimal(adds) and instead == m.group(1), sentence
        else:
            assert b == number(before) and x == taken and total == m.group(1), sentence
            assert (sign == '=') == works_out(decimal(b) - decimal(x), total), sentence


def test_every_slip_the_answers_name_has_its_sentence():
    named = {group for groups in MISTAKES.values() for group in groups}
    assert set(SAYS) == named | {'other'} and set(SAYS) <= set(GROUPS)


@pytest.mark.parametrize('key', PRESETS)
def test_each_slips_value_typed_gets_the_sentence_that_names_it_with_its_numbers(key):
    trace = traced(key)
    for k, step in enumerate(trace.steps):
        for question in candidates(trace, k):
            child = int(question['node'])
            before = next(c.before for c in step.contributions if c.child == child) or 0.0
            for group, value in question['candidates']:
                said = slip_words(trace, k, child, value)
                if group == 'right':
                    assert said == '', said
                    continue
                check(said, group, value, before)
            far = 1000 + max(abs(v) for _, v in question['candidates'])  # no slip's value
            assert classify(far, question['candidates']) == 'other'
            check(slip_words(trace, k, child, far), 'other', far, before)


def test_the_neurons_tanh_step_names_the_local_gradient_left_out_with_t():
    # o = tanh(n), n = 0.8814: t = 1/√2 = 0.7071, 1 − t² = 0.5; o.grad = 1, so n.grad is 0.5, and 1 is o.grad alone
    trace = traced('neuron')
    n = next(i for i, node in enumerate(trace.nodes) if node.name == 'n')
    assert slip_words(trace, 0, n, 1.0) == (
        '1.0000 is o.grad alone: the local gradient (1 − t² = 1 − 0.7071² = 0.5000, where t = tanh(n.data) = 0.7071) '
        'was left out.'
    )
    assert slip_words(trace, 0, n, 0.5) == '' and slip_words(trace, 0, n, None) == ''


def test_reuses_a_times_b_step_names_each_slip_from_the_6_a_grad_held():
    # out = a*b + a*a, a = 3, b = −2: by a*b's step a.grad holds 6 (a*a's 3 + 3); the step adds b × 1 = −2: right 4
    trace = traced('reuse')
    k = next(k for k, s in enumerate(trace.steps) if trace.nodes[s.node].name == 'a*b')
    a = next(i for i, node in enumerate(trace.nodes) if node.name == 'a')
    assert slip_words(trace, k, a, -2.0).endswith('= was written for +=, and the 6.0000 a.grad held was lost.')
    sign = '8.0000 is the step’s −2.0000 taken away, not added: 6.0000 − (−2.0000) = 8.0000.'
    local = '(a*b).grad alone: the local gradient (b.data = −2.0000) was left out; added to the 6.0000 a.grad held: '
    assert slip_words(trace, k, a, 8.0) == sign
    assert slip_words(trace, k, a, 7.0).endswith(local + '6.0000 + 1.0000 = 7.0000.')


def test_a_name_in_the_sentence_is_the_users_and_the_quiz_escapes_it():
    # the component prints the sentence through components.markdown.md: a typed label's markup is never rendered
    from components.markdown import md

    x = Value(2.0, label='*x*')
    y = x * Value(3.0, label='w')
    trace = trace_backward(y.tanh(), [x])
    k = next(k for k, s in enumerate(trace.steps) if trace.nodes[s.node].op == '*')
    said = slip_words(trace, k, trace.nodes.index(next(n for n in trace.nodes if n.name == '*x*')), 123.0)
    assert '*x*' in said and '\\*x\\*' in md(said)
