"""No edge crosses its own label: read from dot's own positions (-Tjson), on every preset, on both engines, in every
shape. A label's lines are as wide as the label at any frame (labels never move nodes), so the first frame's layout,
every label blank, holds every frame's."""

import json
import subprocess

import pytest

from engine import PRESETS, assign, trace_backward
from engine.frames import frames
from view.graph import SHAPES, THROUGH, build_dot
from view.numbers import number_width

ENGINES = {'+=': None, '=': assign.Value}


def laid_out(source):
    return json.loads(
        subprocess.run(['dot', '-Tjson'], input=source, capture_output=True, text=True, check=True).stdout
    )


def spline_points(edge, n=24):
    """Points along each cubic Bézier of the edge's drawn spline, in dot's points."""
    found = []
    for op in edge.get('_draw_', []):
        if op['op'] in 'bB':
            p = op['points']
            for k in range(0, len(p) - 3, 3):
                for j in range(n + 1):
                    t, u = j / n, 1 - j / n
                    found.append(tuple(u**3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t**3 * d
                                       for a, b, c, d in zip(*p[k : k + 4])))  # fmt: skip
    return found


def text_boxes(node):
    """[(x0, y0, x1, y1, text)] of the node's drawn lines (y up, as dot gives it): a line from its baseline's
    descent to its ascent, its width as dot measures it."""
    boxes, size = [], 14.0
    for op in node.get('_ldraw_', []):
        if op['op'] == 'F':
            size = op['size']
        if op['op'] == 'T':
            (x, y), w = op['pt'], op['width']
            x0 = {'l': x, 'c': x - w / 2, 'r': x - w}[op['align']]
            boxes.append((x0, y - 0.25 * size, x0 + w, y + 0.8 * size, op['text']))
    return boxes


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('engine', ENGINES)
@pytest.mark.parametrize('key', PRESETS)
def test_no_edge_crosses_its_own_label(key, engine, shape):
    leaves, out = PRESETS[key].build(None, **({'value_type': ENGINES[engine]} if ENGINES[engine] else {}))
    trace = trace_backward(out, leaves)
    graph = laid_out(build_dot(trace, frames(trace)[0], number_width(trace), shape=shape).source)
    edges = {edge.get('id'): edge for edge in graph['edges']}
    labels = [node for node in graph['objects'] if node.get('id', '').startswith('l')]
    assert labels
    for node in labels:
        boxes = text_boxes(node)
        if shape != 'wide':  # a point: the sums stand over the graph
            assert not boxes, node['id']
            continue
        # its product and its result (blank here, as wide as at any frame), and between them the edge's own line
        assert len(boxes) == 3 and set(boxes[1][4]) == {THROUGH}, node['id']
        numbers = [boxes[0], boxes[2]]
        key_ = node['id'][1:]
        halves = [edges[f'e{key_}_in'], edges[f'e{key_}']]
        points = [p for half in halves for p in spline_points(half)]
        for x0, y0, x1, y1, _ in numbers:
            crossing = [p for p in points if x0 <= p[0] <= x1 and y0 <= p[1] <= y1]
            assert not crossing, (key, engine, node['id'], crossing[:2])
        # and the edge still runs through its label, in at its left and on from its right, between those lines
        bottom, top = sorted((numbers[0][1], numbers[1][3]))  # the result's line's foot, the product's line's head
        for x, y in (spline_points(halves[0])[-1], spline_points(halves[1])[0]):
            assert bottom < y < top and numbers[0][0] - 1 <= x <= numbers[0][2] + 1, node['id']
