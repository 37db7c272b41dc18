// A game replayed move by move: the referee's board and each player's
// view side by side (a dark game's views differ from the board), the
// moves as `darkhex play` prints them, and buttons and arrow keys to step.

import { drawBoard } from './board.js';
import { esc } from './api.js';

// Shows `frames` (from /api/replay or a finished game) in `container`,
// at frame `at` (default: the last).
export function showReplay(container, frames, at = frames.length - 1) {
  container.innerHTML = `
    <div class="replay-controls">
      <button type="button" data-step="first" title="start">&laquo;</button>
      <button type="button" data-step="prev" title="previous move (left arrow)">&lsaquo;</button>
      <span class="replay-at"></span>
      <button type="button" data-step="next" title="next move (right arrow)">&rsaquo;</button>
      <button type="button" data-step="last" title="end">&raquo;</button>
    </div>
    <div class="replay-boards">
      <figure><figcaption>Referee</figcaption><div class="board" data-view="real"></div></figure>
      <figure data-side="0"><figcaption>x (Black) sees</figcaption><div class="board" data-view="0"></div></figure>
      <figure data-side="1"><figcaption>o (White) sees</figcaption><div class="board" data-view="1"></div></figure>
    </div>
    <pre class="replay-text"></pre>
    <ol class="move-list"></ol>`;
  const list = container.querySelector('.move-list');
  frames.slice(1).forEach((f, i) => {
    const li = document.createElement('li');
    li.innerHTML = `<a href="#" data-frame="${i + 1}">${esc(f.line)}</a>`;
    list.appendChild(li);
  });
  let current = at;
  const show = (i) => {
    current = Math.max(0, Math.min(frames.length - 1, i));
    const f = frames[current];
    container.dataset.frame = String(current);
    container.querySelector('.replay-at').textContent =
      current === 0 ? `start (${frames.length - 1} moves)` : `move ${current} of ${frames.length - 1}: ${f.line}`;
    const last = f.action ?? null;
    const real = container.querySelector('[data-view="real"]');
    const dark = f.dark;
    if (f.real) {
      drawBoard(real, f.real, { highlight: last, title: 'referee board' });
      for (const p of [0, 1]) {
        const fig = container.querySelector(`figure[data-side="${p}"]`);
        fig.hidden = !dark;
        if (dark) drawBoard(fig.querySelector('.board'), f.views[p], { title: `player ${p} view` });
      }
      container.querySelector('.replay-text').textContent = f.outcome || '';
    } else {
      // Poker: the state and each player's view as text.
      real.textContent = '';
      for (const p of [0, 1]) container.querySelector(`figure[data-side="${p}"]`).hidden = true;
      container.querySelector('.replay-text').textContent =
        `${f.text}\nplayer 0 sees: ${f.view_texts[0]}\nplayer 1 sees: ${f.view_texts[1]}${f.outcome ? `\n${f.outcome}` : ''}`;
    }
    list.querySelectorAll('a').forEach((a) => a.classList.toggle('current', Number(a.dataset.frame) === current));
  };
  container.querySelectorAll('[data-step]').forEach((b) => {
    b.onclick = () => show({ first: 0, prev: current - 1, next: current + 1, last: frames.length - 1 }[b.dataset.step]);
  });
  list.onclick = (e) => {
    const a = e.target.closest('a');
    if (a) { e.preventDefault(); show(Number(a.dataset.frame)); }
  };
  container.tabIndex = 0;
  container.onkeydown = (e) => {
    if (e.key === 'ArrowLeft') show(current - 1);
    if (e.key === 'ArrowRight') show(current + 1);
  };
  show(at);
  return { show };
}
