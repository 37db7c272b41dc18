// A league folder: ratings and the pairwise table (the report `darkhex
// league` prints), the games with filters, any game replayed move by move
// with the referee's board and both players' views.

import { get, esc, showError } from './api.js';
import { showReplay } from './replay.js';

const $ = (id) => document.getElementById(id);
let league = null;

export function initLeague() {
  $('league-form').addEventListener('submit', (e) => { e.preventDefault(); open($('league-form').elements.dir.value); });
  $('pair-filter').onchange = listGames;
  $('result-filter').onchange = listGames;
}

const pct = (x) => `${(100 * x).toFixed(0)}%`;

async function open(dir) {
  showError($('league-error'));
  try {
    league = await get('/api/league', { dir });
  } catch (e) {
    $('league-body').hidden = true;
    showError($('league-error'), e);
    return;
  }
  const r = league.report;
  $('league-body').hidden = false;
  $('league-title').textContent = `${r.game}: ${r.games} games`;
  $('ratings').innerHTML = '<tr><th>rank</th><th>player</th><th>Elo</th><th>95% interval</th><th>games</th><th>score</th></tr>' +
    r.players.map((p, i) => `<tr><td>${i + 1}</td><td title="${esc(p.spec)}">${esc(p.name)}</td><td>${p.rating.elo.toFixed(0)}</td>
      <td>${p.rating.low.toFixed(0)} to ${p.rating.high.toFixed(0)}</td><td>${p.rating.games}</td><td>${pct(p.rating.score)}</td></tr>`).join('');
  const names = r.players.map((p) => p.name);
  const cell = (row, col) => r.cross.find((c) => c.row === row && c.col === col);
  $('cross').innerHTML = `<tr><th></th>${names.map((n) => `<th>${esc(n)}</th>`).join('')}</tr>` +
    names.map((row) => `<tr><th>${esc(row)}</th>${names.map((col) => {
      const c = cell(row, col);
      return c ? `<td title="first ${pct(c.first.score)}, second ${pct(c.second.score)}">${pct(c.overall.score)}</td>` : '<td>&middot;</td>';
    }).join('')}</tr>`).join('');
  const pairs = [...new Set(league.games.map((g) => `${g.a} vs ${g.b}`))];
  $('pair-filter').innerHTML = '<option value="">all pairs</option>' + pairs.map((p) => `<option>${esc(p)}</option>`).join('');
  listGames();
  $('league-replay').textContent = '';
}

function listGames() {
  const pair = $('pair-filter').value;
  const result = $('result-filter').value;
  const shown = league.games.filter((g) => (!pair || `${g.a} vs ${g.b}` === pair)
    && (result === '' || (g.returns[Number(result)] > g.returns[1 - Number(result)])));
  $('game-count').textContent = `${shown.length} of ${league.games.length} games`;
  const rows = shown.slice(0, 2000).map((g) => {
    const winner = g.returns[0] > g.returns[1] ? 0 : g.returns[1] > g.returns[0] ? 1 : null;
    return `<tr data-id="${g.id}"><td><a href="#" data-id="${g.id}">${g.id}</a></td><td${winner === 0 ? ' class="won"' : ''}>${esc(g.seats[0])}</td>
      <td${winner === 1 ? ' class="won"' : ''}>${esc(g.seats[1])}</td><td>${g.moves}</td></tr>`;
  });
  $('games').innerHTML = '<tr><th>game</th><th>first (x)</th><th>second (o)</th><th>moves</th></tr>' + rows.join('');
  $('games').onclick = (e) => {
    const a = e.target.closest('a[data-id]');
    if (a) { e.preventDefault(); replay(Number(a.dataset.id)); }
  };
}

async function replay(id) {
  const g = league.games.find((x) => x.id === id);
  showError($('league-error'));
  if (!g.history) {
    showError($('league-error'), `game ${id} was logged without its moves: only its result is known`);
    return;
  }
  try {
    const r = await get('/api/replay', { game: league.report.game, moves: g.history });
    const box = $('league-replay');
    box.dataset.gameId = id;
    const head = document.createElement('h4');
    head.textContent = `Game ${id}: ${g.seats[0]} (x) against ${g.seats[1]} (o), seed ${g.seed}`;
    showReplay(box, r.frames, 0);
    box.prepend(head);
  } catch (e) {
    showError($('league-error'), e);
  }
}
