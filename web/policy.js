// Inspect a policy: walk the game by clicking moves (both players', as the
// real game goes); at each state the player to move's information state
// and the policy's probabilities there, as a heat map on that player's
// view; the exact exploitability and the best response's values at that
// information state on request.

import { get, follow, esc, showError } from './api.js';
import { drawBoard } from './board.js';

const $ = (id) => document.getElementById(id);
let path = '';
let moves = [];
let current = null;
let values = null;   // the best response's values at the current state

export function initPolicy() {
  $('policy-form').addEventListener('submit', (e) => {
    e.preventDefault();
    path = $('policy-form').elements.path.value;
    moves = [];
    show();
  });
  $('policy-back').onclick = () => { moves.pop(); show(); };
  $('policy-start').onclick = () => { moves = []; show(); };
  $('policy-moves').addEventListener('change', (e) => {
    moves = e.target.value.split(',').map((m) => m.trim()).filter(Boolean);
    show();
  });
  $('exploit').onclick = exploit;
}

const fmt = (x) => (x === null || x === undefined ? 'unreached' : x.toFixed(4));

async function show() {
  showError($('policy-error'));
  values = null;
  $('exploit-result').textContent = '';
  try {
    current = await get('/api/policy/at', { path, moves: moves.join(',') });
  } catch (e) {
    showError($('policy-error'), e);
    if (!current) $('policy-body').hidden = true;
    return;
  }
  render();
}

function render() {
  const s = current;
  const f = s.frame;
  const sum = s.summary;
  $('policy-body').hidden = false;
  $('policy-body').dataset.moves = moves.join(',');
  $('policy-summary').textContent = `${sum.kind} for ${sum.game}` +
    (sum.algorithm ? `, ${sum.algorithm}` : '') + (sum.iterations ? `, ${sum.iterations} iterations` : '') +
    (sum.exploitability !== undefined && sum.exploitability !== null ? `, exploitability ${sum.exploitability.toExponential(3)} recorded` : '') +
    (sum.infosets ? `; ${sum.infosets[0]} and ${sum.infosets[1]} information states` : '');
  $('policy-moves').value = moves.join(',');
  const p = s.player;
  const probs = {};
  (s.actions || []).forEach((a) => { probs[a.id] = a.prob; });
  $('policy-title').textContent = p === undefined
    ? (f.outcome || 'chance to deal')
    : `${f.to_move} (player ${p}) to move: the policy's probabilities${s.covered ? '' : ' (not in the file: it plays uniformly here)'}`;
  const play = (name) => { moves.push(name); show(); };
  if (f.real) {
    const n = f.real.rows * f.real.cols;
    const heat = Array(n).fill(null);
    for (const [id, prob] of Object.entries(probs)) heat[id] = prob;
    // The mover picks among the cells empty in their own view: the heat
    // map is drawn there, and the referee's board beside it.
    const view = p !== undefined ? f.views[p] : f.real;
    drawBoard($('policy-board'), view, {
      heat: p !== undefined ? heat : null,
      heatLabel: (x) => x.toFixed(2),
      clickable: (s.actions || []).map((a) => a.id),
      onCell: (cell) => play(s.actions.find((a) => a.id === cell).name),
      title: 'policy heat map',
      caption: p !== undefined ? `player ${p}'s view; click a cell to play it` : '',
    });
    const dark = p !== undefined && f.dark;
    $('policy-view-board').hidden = !dark;
    if (dark) drawBoard($('policy-view-board'), f.real, { title: 'referee board', caption: 'the referee\'s board', scale: 0.7 });
    $('policy-choices').replaceChildren();
  } else {
    $('policy-board').innerHTML = `<pre class="info">${esc(f.text)}</pre>`;
    $('policy-view-board').hidden = true;
    const options = s.actions || s.chance || [];
    $('policy-choices').replaceChildren(...options.map((a) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `${a.name} ${a.prob.toFixed(3)}`;
      b.onclick = () => play(a.name);
      return b;
    }));
  }
  $('policy-state').innerHTML = p === undefined ? '' :
    `<b>Information state</b> of player ${p}: ${esc(s.information_state)}`;
  const rows = (s.actions || []).map((a) => {
    const v = values?.actions.find((x) => x.id === a.id);
    return `<tr data-action="${a.id}"><td>${esc(a.name)}</td><td class="num" data-prob="${a.prob}">${a.prob.toFixed(4)}</td>${values ? `<td class="num">${fmt(v?.value)}</td>` : ''}</tr>`;
  });
  $('policy-table').innerHTML = rows.length
    ? `<tr><th>move</th><th>probability</th>${values ? '<th>best response value</th>' : ''}</tr>${rows.join('')}` : '';
}

async function exploit() {
  showError($('policy-error'));
  $('exploit-result').textContent = '';
  try {
    const r = await follow($('policy-job'), '/api/policy/exploit', { path, moves: moves.join(',') });
    let html = `<p class="exploit" data-exploitability="${r.exploitability}">exploitability <b>${r.exploitability.toExponential(4)}</b> (${esc(r.method)};
      best responses earn ${r.best_response_values.map((x) => x.toFixed(4)).join(' and ')}; the policy's value for player 0 is ${r.value_p0.toFixed(4)})</p>`;
    if (!r.at && r.method === 'streaming pass') {
      html += '<p class="muted">The game is too large to compile: the values at an information state need its tree.</p>';
    }
    if (r.at) {
      values = r.at;
      html += `<p>At this information state player ${r.at.player} is reached with probability ${r.at.reach.toFixed(4)} by chance and the opponent;
        a best response earns ${fmt(r.at.best_response_value)} from here, the policy's move then a best response ${fmt(r.at.policy_then_best_response)}.</p>`;
    }
    $('exploit-result').innerHTML = html;
    render();
    $('exploit-result').innerHTML = html;
  } catch (e) {
    if (e.message !== 'cancelled') showError($('policy-error'), e);
  }
}
