// Lays DOT out with the page's own Graphviz as WebAssembly (static/graphviz/index.js), outside the browser: reads a
// JSON list of DOT texts on stdin, writes a JSON list of [svg, ms] on stdout. For tests/app/test_player.py and bench/.
import { Graphviz } from '../static/graphviz/index.js';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const graphviz = await Graphviz.load();
const out = JSON.parse(input).map((dot) => {
  const start = performance.now();
  const svg = graphviz.dot(dot);
  return [svg, performance.now() - start];
});
process.stdout.write(JSON.stringify(out));
