// The component's entry: Streamlit calls it on every run of the page with the run's bytes (components/player's
// graph_player); the player is made once per element and kept on it.
import { Player } from './player.js';

export default function (component) {
  const { parentElement } = component;
  const root = parentElement.querySelector('.player') || parentElement.appendChild(Object.assign(document.createElement('div'), { className: 'player' }));
  const player = root.__player || (root.__player = new Player(root));
  player.component = component;
  player.update(component.data);
}
