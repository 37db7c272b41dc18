// Play against any player spec. The page shows only what the user's seat
// sees: in a dark game their own view and observations; the referee's
// board and the replay when the game is over.

import { post, get, follow, esc, showError } from './api.js';
import { drawBoard } from './board.js';
import { showReplay } from './replay.js';

const $ = (id) => document.getElementById(id);
let game = null;      // the server's view of the current game
let overlay = null;   // {heat, label, caption} drawn over the board (Hex tools)
let renders = 0;     // views drawn so far (the browser tests wait on it)

export function initPlay() {
  $('play-form').addEventListener('submit', (e) => { e.preventDefault(); start(); });
  $('swap').onclick = () => {
    const seat = $('play-form').elements.seat;
    seat.value = seat.value === '0' ? '1' : '0';
    start();
  };
  $('move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('move-form').elements.move;
    if (input.value.trim()) move(input.value.trim());
    input.value = '';
  });
  $('undo').onclick = () => act(() => post(`/api/play/${game.id}/undo`));
  $('verdict').onclick = verdict;
  $('ek').onclick = ek;
  // A board from the start: a game with the form's settings.
  start();
}

async function act(request) {
  showError($('play-error'));
  try {
    game = await request();
    overlay = null;
    $('hex-result').textContent = '';
    render();
  } catch (e) {
    showError($('play-error'), e);
  }
}

async function start() {
  const f = $('play-form').elements;
  showError($('play-error'));
  // Preparing a player can take a while (an LP is solved, a policy file
  // checked against the game): a job the page follows and can leave.
  $('play-status').textContent = `Starting: preparing ${f.opponent.value}`;
  try {
    await follow($('prepare-job'), '/api/play/prepare', { game: f.game.value, opponent: f.opponent.value });
  } catch (e) {
    $('play-status').textContent = '';
    showError($('play-error'), e);
    return;
  }
  return act(() => post('/api/play', {
    game: f.game.value, opponent: f.opponent.value,
    seat: Number(f.seat.value), seed: Number(f.seed.value || 0),
  }));
}

function move(text) {
  if (!game || !game.your_turn) return;
  return act(() => post(`/api/play/${game.id}/move`, { move: text }));
}

function render() {
  $('play-game').hidden = false;
  const g = game;
  const root = $('play-game');
  root.dataset.over = g.over ? '1' : '0';
  root.dataset.gameId = g.id;
  root.dataset.renders = String(++renders);
  $('play-title').textContent = `${g.game}: you are ${g.you} against ${g.opponent}`;
  const status = g.over ? g.result.outcome : g.your_turn ? `Your move (${g.you})` : 'Waiting for the opponent';
  $('play-status').textContent = status;
  const legal = g.legal.map((a) => a.id);
  if (g.board) {
    drawBoard($('play-board'), g.board, {
      clickable: g.your_turn ? legal : [],
      onCell: (cell) => move(g.legal.find((a) => a.id === cell).name),
      highlight: g.last ? nameToCell(g.last, g.board.cols) : undefined,
      heat: overlay?.heat, heatLabel: overlay?.label, caption: overlay?.caption,
      title: 'your view',
    });
    $('play-actions').replaceChildren();
  } else {
    $('play-board').innerHTML = `<pre class="info">${esc(g.text)}</pre>`;
    const buttons = g.legal.map((a) => {
      const b = document.createElement('button');
      b.type = 'button'; b.textContent = a.name; b.dataset.action = a.name;
      b.onclick = () => move(a.name);
      return b;
    });
    $('play-actions').replaceChildren(...buttons);
  }
  $('move-form').hidden = g.over || !g.board;
  $('undo').hidden = !g.undo || g.over;
  const o = g.observed;
  const facts = [];
  if (g.board && g.game.startsWith('dark')) {
    facts.push(`your collisions: ${o.collisions}`);
    if (o.opponent_turns !== null) facts.push(`opponent's turns: ${o.opponent_turns}`);
    if (o.opponent_collisions !== null) facts.push(`opponent's collisions on your stones: ${o.opponent_collisions}`);
  }
  const log = g.game.startsWith('dark') ? o.log : (g.moves || []);
  $('play-observed').innerHTML =
    (facts.length ? `<p class="facts">${facts.map(esc).join(' · ')}</p>` : '') +
    (log.length ? `<h4>${g.game.startsWith('dark') ? 'What you observed' : 'Moves'}</h4><ol class="log">${log.map((l) => `<li>${esc(l)}</li>`).join('')}</ol>` : '');
  $('play-notes').innerHTML = g.notes.map((n) => `<li>${esc(n)}</li>`).join('');
  $('hex-tools').hidden = !g.game.match(/^(hex|rex)\(/) || g.over;
  $('ek').hidden = g.game.startsWith('rex');
  $('play-end').hidden = !g.over;
  if (g.over) {
    $('play-outcome').textContent = `${g.result.you_won ? 'You won' : 'You lost'}: ${g.result.outcome}. Moves: ${g.result.moves}`;
    $('play-end').dataset.moves = g.result.moves;
    $('play-end').dataset.returns = g.result.returns.join(',');
    showReplay($('play-replay'), g.result.frames);
  }
}

function nameToCell(name, cols) {
  const m = /^([a-z])(\d+)$/.exec(name);
  return m ? (Number(m[2]) - 1) * cols + (m[1].charCodeAt(0) - 97) : undefined;
}

async function verdict() {
  const moves = (game.moves || []).join(',');
  $('hex-result').textContent = '';
  try {
    const v = await follow($('job'), '/api/hex/verdict', { game: game.game, moves, seconds: 10 });
    const names = ['Black (x)', 'White (o)'];
    const wins = v.moves.filter((m) => m.wins === true).map((m) => m.name);
    const unknown = v.moves.filter((m) => m.wins === null).length;
    const who = v.winner === null ? 'undecided within the time' : `${names[v.winner]} wins`;
    $('hex-result').innerHTML = `<p class="verdict">${esc(who)}; winning moves for ${esc(names[v.to_move])}: ${esc(wins.join(' ') || 'none')}${unknown ? ` (${unknown} moves undecided)` : ''}</p>`;
    const heat = Array(game.board.rows * game.board.cols).fill(null);
    v.moves.forEach((m) => { heat[m.id] = m.wins === true ? 1 : m.wins === false ? 0 : null; });
    overlay = { heat, label: (x) => (x > 0 ? 'win' : ''), caption: 'winning moves of the player to move' };
    render();
  } catch (e) {
    if (e.message !== 'cancelled') showError($('play-error'), e);
  }
}

async function ek() {
  try {
    const moves = (game.moves || []).join(',');
    const n = await get('/api/hex/network', { game: game.game, moves, k: 2 });
    const side = game.seat === 0 ? n.black : n.white;
    const heat = side.contribution.map((v, i) => (game.board.cells[i] === null ? v : null));
    overlay = { heat, label: (x) => (100 * x).toFixed(0), caption: `your network's 2-contribution (per cent of paths); E_2 = ${n.e_k}` };
    $('hex-result').innerHTML = `<p>E = ${esc(n.e)}, E<sub>2</sub> = ${esc(n.e_k)} (Black's distance ${esc(n.black.distance)}, White's ${esc(n.white.distance)})</p>`;
    render();
  } catch (e) {
    showError($('play-error'), e);
  }
}
