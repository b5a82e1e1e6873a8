"""Predict the grad (mode=quiz) names the likely slip under a wrong answer, as code mode does: the neuron's first
question, o = tanh(n) passing its grad to n, answered 1 (o.grad alone, the 1 − t² left out) and −0.5 (a sign slip);
and nothing of the kind under a right answer. Every number is worked out by hand: n = 2·(−3) + 0·1 + 6.8814 =
0.8814, t = tanh(n) = 1/√2 = 0.7071, 1 − t² = 0.5, o.grad = 1, so n.grad = 0.5."""

import test_app

source, start = test_app.source, test_app.start  # the page on both layout sources: test_app's fixtures


def answered(start, value):
    """The neuron's quiz, its first question answered `value`: the page's markdown texts."""
    page = start(query={'expr': 'neuron', 'mode': 'quiz'})
    assert page.markdown[0].value.startswith('**Question 1 of')
    (box,) = [b for b in page.number_input if b.label == 'n.grad']
    box.set_value(value)
    (check,) = [b for b in page.button if b.label == 'Check']
    check.click().run()
    assert not page.exception
    return [m.value for m in page.markdown]


def plain(text):
    """Markdown as read: md()'s backslash escapes and the line break gone."""
    return text.replace('\\', '').replace('  \n', ' ')


def test_a_wrong_answer_that_leaves_out_tanhs_local_gradient_is_told_so_with_t(start):
    (said,) = [plain(m) for m in answered(start, 1.0) if '✗ not quite' in m]
    assert 'n.grad = **0.5000** (you said 1.0000)' in said
    assert (
        '1.0000 is o.grad alone: the local gradient (1 − t² = 1 − 0.7071² = 0.5000, where t = tanh(n.data) = '
        '0.7071) was left out.' in said
    )


def test_a_sign_slip_is_named_and_a_right_answer_gets_no_slip(start):
    (said,) = [plain(m) for m in answered(start, -0.5) if '✗ not quite' in m]
    assert '−0.5000 has the sign slipped: the step adds 0.5000 to n.grad, not −0.5000.' in said
    texts = answered(start, 0.5)
    assert any('✓ right' in m for m in texts) and not any('slip' in m or 'left out' in m for m in texts)


def test_an_answer_no_slip_gives_is_not_the_right_value_with_a_nudge(start):
    (said,) = [plain(m) for m in answered(start, 7.0) if '✗ not quite' in m]
    assert '7.0000 is not the right value, and no slip we know of gives it. Work it out again:' in said


def test_a_screen_reader_is_told_the_verdict_and_the_score_as_an_alert(start):
    # the verdict replaces the form that had the focus: an alert says it (n.grad is 0.5, worked out above)
    page = start(query={'expr': 'neuron', 'mode': 'quiz'})
    (box,) = [b for b in page.number_input if b.label == 'n.grad']
    box.set_value(7.0)
    [b for b in page.button if b.label == 'Check'][0].click().run()
    (alert,) = [h.proto.body for h in page.get('html') if 'role="alert"' in h.proto.body]
    assert '✗ not quite: n.grad = 0.5000 (you said 7.0000)' in alert
    assert 'Score so far: 0 of 1 right.' in alert
